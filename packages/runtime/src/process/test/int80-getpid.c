/* getpid through i386's syscall table (int 0x80) from an x86_64 program: a second table that a
   filter written for x86_64 numbers alone would not cover. Built by seccomp.test.ts with gcc. */
#include <stdio.h>

int main(void) {
  long pid;
  __asm__ volatile("int $0x80" : "=a"(pid) : "a"(20L) : "memory");
  printf("%ld\n", pid);
  return 0;
}
