// uring-feasibility.c: would an io_uring chain per sample save pmlogger
// its second wake-up? (docs/benchmarks.md, "pmlogger", "One wake-up per
// sample: measured, and no").
//
// A recorder's loop, 400 samples at 10 and 20 ms, twice: (A) as pcpkit's
// and the real pmlogger's loops do it, sleep, send the fetch, wait for the
// reply, read it, write 3924 bytes to a file; (B) one io_uring chain per
// sample, a timeout linked to the send linked to the receive
// (IORING_TIMEOUT_ETIME_SUCCESS, IOSQE_CQE_SKIP_SUCCESS: only the receive
// posts a completion), waited for by io_uring_enter until the receive's
// completion is there, then the same write. The "pmcd" is a child
// process that answers each 520-byte request with 3924 bytes after 300 us
// of work. It prints the CPU time (getrusage, all threads of the process,
// io_uring's workers included), the context switches and the waits that
// ended before the receive's completion, per sample of each.
//
// The answer is no: (B) is switched to twice per sample, as (A) is (the
// timer's expiry, then pmcd's reply), and costs about the same.
//
//   gcc -O2 -o /tmp/uring-feasibility scripts/uring-feasibility.c && /tmp/uring-feasibility
//
// Needs Linux 5.17 or later with io_uring enabled; writes /tmp/uring-feasibility.out.
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <errno.h>
static long csw(void){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_nvcsw+r.ru_nivcsw;}

static double cpu(void){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_utime.tv_sec*1e6+r.ru_utime.tv_usec+r.ru_stime.tv_sec*1e6+r.ru_stime.tv_usec;}
static char req[520], rep[3924];

static void server(int fd){ char b[520]; for(;;){ ssize_t n=0; while(n<520){ssize_t k=read(fd,b+n,520-n); if(k<=0) _exit(0); n+=k;} struct timespec t0,t1; clock_gettime(CLOCK_MONOTONIC,&t0); do clock_gettime(CLOCK_MONOTONIC,&t1); while((t1.tv_sec-t0.tv_sec)*1000000000L+(t1.tv_nsec-t0.tv_nsec) < 300000); write(fd,rep,sizeof rep);} }

struct ring { int fd; unsigned *sq_tail,*sq_mask,*sq_array,*cq_head,*cq_tail,*cq_mask; struct io_uring_sqe *sqes; struct io_uring_cqe *cqes; };
static int ring_init(struct ring *r){ struct io_uring_params p; memset(&p,0,sizeof p); r->fd=syscall(__NR_io_uring_setup,8,&p); if(r->fd<0) return -1;
 size_t sqsz=p.sq_off.array+p.sq_entries*sizeof(unsigned), cqsz=p.cq_off.cqes+p.cq_entries*sizeof(struct io_uring_cqe);
 if(cqsz>sqsz) sqsz=cqsz; // one mapping for both rings (IORING_FEAT_SINGLE_MMAP)
 char *sq=mmap(0,sqsz,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_POPULATE,r->fd,IORING_OFF_SQ_RING); char *cq=sq;
 r->sq_tail=(unsigned*)(sq+p.sq_off.tail); r->sq_mask=(unsigned*)(sq+p.sq_off.ring_mask); r->sq_array=(unsigned*)(sq+p.sq_off.array);
 r->cq_head=(unsigned*)(cq+p.cq_off.head); r->cq_tail=(unsigned*)(cq+p.cq_off.tail); r->cq_mask=(unsigned*)(cq+p.cq_off.ring_mask); r->cqes=(struct io_uring_cqe*)(cq+p.cq_off.cqes);
 r->sqes=mmap(0,p.sq_entries*sizeof(struct io_uring_sqe),PROT_READ|PROT_WRITE,MAP_SHARED|MAP_POPULATE,r->fd,IORING_OFF_SQES); return 0; }
static struct io_uring_sqe *getsqe(struct ring *r){ unsigned t=*r->sq_tail; unsigned i=t&*r->sq_mask; r->sq_array[i]=i; struct io_uring_sqe *s=&r->sqes[i]; memset(s,0,sizeof *s); atomic_store_explicit((_Atomic unsigned*)r->sq_tail,t+1,memory_order_release); return s; }

int main(int argc,char**argv){
 int sv[2]; socketpair(AF_UNIX,SOCK_STREAM,0,sv); pid_t pid=fork(); if(!pid){close(sv[0]); server(sv[1]);} close(sv[1]); int fd=sv[0];
 int out=open("/tmp/uring-feasibility.out", O_CREAT|O_WRONLY|O_TRUNC, 0644);
 long ivs[]={10,20}; int N=400;
 for(int rep_=0; rep_<2; rep_++) for(int k=0;k<2;k++){ long iv=ivs[k];
  // A: sleep, send, poll, recv, write
  long csa=csw(); double c0=cpu(); for(int i=0;i<N;i++){ struct timespec ts={0,iv*1000000L-400000}; clock_nanosleep(CLOCK_MONOTONIC,0,&ts,0); send(fd,req,sizeof req,MSG_NOSIGNAL); struct pollfd pf={fd,POLLIN,0}; poll(&pf,1,-1); ssize_t n=0; while(n<(ssize_t)sizeof rep){ssize_t m=recv(fd,rep+n,sizeof rep-n,0); if(m<=0) break; n+=m; if(n<(ssize_t)sizeof rep) poll(&pf,1,-1);} write(out,rep,sizeof rep);} double a=(cpu()-c0)/N; double acs=(double)(csw()-csa)/N;
  // B: io_uring chain
  struct ring r; if(ring_init(&r)<0){perror("io_uring_setup"); return 1;}
  long early=0, cs0=csw(); c0=cpu(); for(int i=0;i<N;i++){ struct __kernel_timespec ts={0,iv*1000000L-400000};
   struct io_uring_sqe *s=getsqe(&r); s->opcode=IORING_OP_TIMEOUT; s->addr=(unsigned long)&ts; s->len=1; s->timeout_flags=IORING_TIMEOUT_ETIME_SUCCESS; s->flags=IOSQE_IO_LINK|IOSQE_CQE_SKIP_SUCCESS; s->user_data=1;
   s=getsqe(&r); s->opcode=IORING_OP_SEND; s->fd=fd; s->addr=(unsigned long)req; s->len=sizeof req; s->msg_flags=MSG_NOSIGNAL; s->flags=IOSQE_IO_LINK|IOSQE_CQE_SKIP_SUCCESS; s->user_data=2;
   s=getsqe(&r); s->opcode=IORING_OP_RECV; s->fd=fd; s->addr=(unsigned long)rep; s->len=sizeof rep; s->msg_flags=MSG_WAITALL; s->user_data=3;
   // The timeout's expiry ends an io_uring_enter wait even though it
   // posts no completion (the kernel's cq_timeouts count): wait again
   // until the receive's completion is there. (The first version of this
   // program did not, and timed a loop that never waited for pmcd.)
   int ret=syscall(__NR_io_uring_enter,r.fd,3,1,IORING_ENTER_GETEVENTS,NULL,0); if(ret<0){perror("enter"); return 1;}
   while(atomic_load_explicit((_Atomic unsigned*)r.cq_tail,memory_order_acquire)==*r.cq_head){ early++; if(syscall(__NR_io_uring_enter,r.fd,0,1,IORING_ENTER_GETEVENTS,NULL,0)<0 && errno!=EINTR){perror("enter"); return 1;} }
   unsigned h=*r.cq_head; unsigned t=atomic_load_explicit((_Atomic unsigned*)r.cq_tail,memory_order_acquire);
   for(;h!=t;h++){ struct io_uring_cqe *c=&r.cqes[h&*r.cq_mask]; if(c->user_data!=3||c->res!=(int)sizeof rep) fprintf(stderr,"cqe %llu res %d\n",(unsigned long long)c->user_data,c->res);} atomic_store_explicit((_Atomic unsigned*)r.cq_head,h,memory_order_release);
   write(out,rep,sizeof rep);} double b=(cpu()-c0)/N; close(r.fd);
  printf("%ld ms: sleep+send+poll+recv %.1f us/sample (%.2f context switches), io_uring chain %.1f us/sample (%.2f context switches, %.2f early returns) (%.2fx)\n", iv, a, acs, b, (double)(csw()-cs0)/N, (double)early/N, b/a);
 }
 close(fd); waitpid(pid,0,0); return 0;
}
