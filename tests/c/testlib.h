/*
** testlib.h — a minimal test harness for the C tests: CHECK* macros count passes and failures,
** SKIP(why) counts a check that cannot run here (e.g. without ../shared) and says why, and
** tl_done() prints "RESULT <passed> <failed> <skipped>" (read by tests/run.sh) and returns the
** exit code.
*/
#ifndef TESTLIB_H
#define TESTLIB_H
#include <stdio.h>
#include <string.h>
#include <stdint.h>

static int tl_pass, tl_fail, tl_skip;

#define CHECK(cond) do{ if(cond){ tl_pass++; } else { tl_fail++; \
  printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } }while(0)
#define CHECK_INT(a, b) do{ long long a_ = (long long)(a), b_ = (long long)(b); \
  if(a_==b_){ tl_pass++; } else { tl_fail++; \
  printf("FAIL %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_); } }while(0)
#define CHECK_STR(a, b) do{ const char *a_ = (a), *b_ = (b); \
  if(a_ && b_ && strcmp(a_, b_)==0){ tl_pass++; } else { tl_fail++; \
  printf("FAIL %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } }while(0)
#define CHECK_CONTAINS(a, b) do{ const char *a_ = (a), *b_ = (b); \
  if(a_ && strstr(a_, b_)){ tl_pass++; } else { tl_fail++; \
  printf("FAIL %s:%d: %s == \"%s\", expected to contain \"%s\"\n", __FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_); } }while(0)

#define SKIP(why) do{ tl_skip++; printf("SKIP %s\n", why); }while(0)

static int tl_done(void){
  printf("RESULT %d %d %d\n", tl_pass, tl_fail, tl_skip);
  return tl_fail ? 1 : 0;
}
#endif
