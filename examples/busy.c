/* busy.c — a CPU-bound C program; examples/busy.perf.txt is its profile, written on Linux 6.x with
** gcc -O1 -g -fno-omit-frame-pointer -o busy busy.c && perf record -F 199 -g ./busy && perf script
** (the binary path rewritten to /usr/local/bin/busy). */
#include <stdio.h>
#include <string.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long checksum(const char *z, size_t n){
  unsigned long h = 5381;
  for(size_t i=0; i<n; i++) h = h*33 + (unsigned char)z[i];
  return h;
}
__attribute__((noinline)) static unsigned long fib(int k){ return k<2 ? (unsigned long)k : fib(k-1) + fib(k-2); }
__attribute__((noinline)) static void compress_block(char *buf, size_t n){
  for(int r=0; r<40; r++) for(size_t i=1; i<n; i++) buf[i] ^= (char)(buf[i-1] + r);
  sink += checksum(buf, n);
}
__attribute__((noinline)) static void handle_request(int i){
  char buf[4096];
  memset(buf, i, sizeof(buf));
  compress_block(buf, sizeof(buf));
  sink += fib(18 + i % 4);
}
int main(void){
  for(int i=0; i<6000; i++) handle_request(i);
  printf("%lu\n", sink);
  return 0;
}
