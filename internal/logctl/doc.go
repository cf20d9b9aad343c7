// Package logctl is the server side of pmlogger's control port: the
// protocol the real pmlc(1) (and pmlogger_check, pmlogctl and the like)
// speak to a running pmlogger. pcpkit's pmlogger answers through it.
//
// # Supported and refused requests
//
// Supported: the connection handshake, "status" (and pmlc's own status
// request made to find the pmcd host), "query METRIC..." (and "show"),
// "new volume", and "flush"/"sync". Refused: requests that change logging
// ("log mandatory ...", "log advisory ..."): they get an ERROR PDU with
// PM_ERR_PERMISSION (-12387), the code the real pmlogger sends when its
// access controls deny PM_OP_LOG_MAND/PM_OP_LOG_ADV, and the connection
// stays open; pmlc prints "Error receiving response from pmlogger: No
// permission to perform requested operation". The QA request 100 (QA_OFF)
// is answered 0 and 101 (QA_SLEEPY) refused with PM_ERR_PERMISSION.
//
// # Where it listens (src/pmlogger/src/ports.c)
//
//   - TCP: the first port from 4330 (Config.PortBase) free on both
//     0.0.0.0 and [::] (two sockets, the v6 one IPV6_V6ONLY), backlog 5.
//   - The unix socket $PCP_RUN_DIR/pmlogger.PID.socket, mode 0666;
//     connections on it are only accepted from root or the server's own uid
//     (SO_PEERCRED), as the real one does; others get PM_ERR_PERMISSION.
//   - The map file $PCP_TMP_DIR/pmlogger/PID (directory made 01777 when
//     missing), mode 0644: "PORT\nPMCDHOST\n/ABS/ARCHIVE\n" plus "NOTE\n"
//     when there is a -m note.
//   - With -P: the symlinks $PCP_TMP_DIR/pmlogger/primary -> the map file
//     and $PCP_RUN_DIR/pmlogger.primary.socket -> the socket.
//
// pmlc "connect PID" tries the unix socket first (local:), then TCP to
// localhost on the port from the map file; "connect PID@host" and -h use
// TCP. libpcp takes PCP_TMP_DIR and PCP_RUN_DIR from the environment.
//
// # Wire format (all integers big-endian)
//
// Every PDU starts with a 12-byte header: length (of the whole PDU),
// type, from. Types used: ERROR 0x7000 (body: int32 code), RESULT 0x7001,
// CREDS 0x700c, LOG_CONTROL 0x8000, LOG_REQUEST 0x8002, LOG_STATUS 0x8003.
//
// Handshake: on accept the server sends ERROR with from = its PID and
// code = LOG_PDU_VERSION (3); pmlc checks from against the PID it asked
// for. A busy server (one client at a time) sends ERROR from 0 with
// -EADDRINUSE and closes; pmlc then reports "Connection refused". The
// client answers with CREDS: int32 count, then count 4-byte credentials
// {uint8 type, uint8 a, uint8 b, uint8 c}; type 1 (CVERSION) with a = 3
// sets the version. The server does not reply to CREDS.
//
// LOG_REQUEST: body int32 type: 1 NEWVOLUME (reply ERROR with the new
// volume number), 2 STATUS (reply LOG_STATUS), 3 SYNC (reply ERROR 0).
//
// LOG_STATUS, version 3: start, last, now as 12-byte timestamps (seconds
// low 32 bits, seconds high 32 bits, nanoseconds), int32 state (0 not
// started, 1 logging), int32 volume, int64 size, six int32 string lengths
// (each counting its NUL, 0 for absent) for pmcd host name, pmcd "fqdn"
// (the real pmlogger sends its connection spec, e.g. "local:"), pmcd
// timezone, pmcd zoneinfo, pmlogger timezone, pmlogger zoneinfo (the real
// pmlogger 6.0.3 sends both zoneinfos absent); then the strings, then '~'
// padding to a multiple of 4 (not counted in the
// lengths, counted in the PDU length). pmlc 6.0.3 crashes (strdup of
// NULL) when the host name or pmlogger timezone is absent, so those are
// always sent, empty ones as a lone NUL. Version 2 (fixed-size: pad, three
// {sec, usec} pairs, state, vol, int64 size, host[64], fqdn[64],
// tz[40], tzlogger[40]) is sent to a client that announced version 2.
//
// LOG_CONTROL: int32 control (11 mandatory, 12 advisory, 13 enquire),
// int32 state (0 off, 1 maybe, 2 on), int32 delta (msec), int32 numpmid,
// then per metric: pmid, int32 numval, numval {int32 inst, int32 value}.
// An enquire is answered with a RESULT: {int32 sec, int32 usec} (zero),
// int32 numpmid, then per metric pmid, int32 numval (negative: an error
// code) and, when numval > 0, int32 valfmt (0, insitu) and the {inst,
// value} pairs. Each value is the logging state: bit 0 on, bit 1
// mandatory, bit 2 available, bit 3 in the log, bits 4..31 the interval
// in milliseconds. A request that listed instances is answered with
// exactly those instances, in its order (state 0 for those not logged),
// as the real pmlogger echoes its request; an "all instances" request is
// answered with the instances the Handler reports.
//
// A malformed or unknown PDU gets ERROR PM_ERR_IPC and the connection is
// closed (the real pmlogger does the same, sometimes sending the error
// twice); so does one whose length is under 12 or over MaxPDU. No timer
// runs while a connection is idle between PDUs; once a PDU's first byte
// has arrived the rest must follow within Config.PDUTimeout (default 10
// s), else the connection is dropped, so a stalled client cannot keep the
// port busy for ever. While one client is connected others are turned
// away, as with the real one.
package logctl
