/* included from cpp.pmns: found through the main file's directory */
#define SYN 245
#define CL 0
