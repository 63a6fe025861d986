/*
** flood.h — the keys an attacker who knows libprofsql's old, public hash would pick (issue 32),
** shared by tests/c/test_parser.c (bounded work, by probe count) and tests/bench/gen_flood.c
** (make bench: time against random keys of the same size).
**
** The hash before issue 32 was public and invertible; it is kept as ps_hash_fixed (the flame
** graph's colours), a multiply-xorshift over 8-byte words: h0 = C ^ n*K; per word
** h = (h ^ w) * M1, h ^= h >> 29; then h ^= h >> 32, h *= M3, h ^= h >> 29. Every step is a
** bijection, so a chosen result can be walked back to the last word that produces it.
**   flood_names(names, n, bCollide)  n 16-byte printable names (no quote, no backslash) whose
**                                     old hashes all have the low 16 bits 0, or random ones
**   fl_tid(bCollide)                  a tid whose old thread key (the 48-byte {type, i, s} of
**                                     pid 1 then of the tid) hashes with the low 16 bits 0, or a
**                                     random one
** Plain C, no SQLite, no libprofsql: the generator needs neither.
*/
#ifndef PS_TEST_FLOOD_H
#define PS_TEST_FLOOD_H
#include <stdint.h>
#include <string.h>

#define FL_M1 0x87c37b91114253d5ull
#define FL_M3 0xc4ceb9fe1a85ec53ull
static uint64_t fl_inv(uint64_t a){          /* the inverse of odd a modulo 2^64 (Newton) */
  uint64_t x = a;
  for(int i=0; i<6; i++) x *= 2 - a*x;
  return x;
}
static uint64_t fl_unxs29(uint64_t y){ return y ^ (y >> 29) ^ (y >> 58); }   /* x ^= x >> 29, undone */
/* the state ps_hash_fixed must reach before its final mix for the result T */
static uint64_t fl_unfinal(uint64_t t){
  uint64_t h = fl_unxs29(t);
  h *= fl_inv(FL_M3);
  return h ^ (h >> 32);
}
/* its state after the 8-byte word w, from state h */
static uint64_t fl_step(uint64_t h, uint64_t w){ h = (h ^ w) * FL_M1; return h ^ (h >> 29); }
static uint64_t fl_rng = 0x243F6A8885A308D3ull;
static uint64_t fl_rand(void){ fl_rng ^= fl_rng << 13; fl_rng ^= fl_rng >> 7; fl_rng ^= fl_rng << 17; return fl_rng; }
static int fl_printable(uint64_t w){
  for(int i=0; i<8; i++){ unsigned c = (w >> (8*i)) & 0xff; if( c<0x21 || c>0x7e || c=='"' || c=='\\' ) return 0; }
  return 1;
}

/* 16-byte printable names whose ps_hash_fixed values all have the low 16 bits 0 (bCollide), or
** random printable names (names[i*16 .. i*16+16)) */
static void flood_names(char *names, size_t n, int bCollide){
  const uint64_t h0 = 0x9E3779B97F4A7C15ull ^ (16ull * 0xff51afd7ed558ccdull);   /* n = 16 */
  const uint64_t m1inv = fl_inv(FL_M1);
  for(size_t i=0; i<n; i++){
    uint64_t w0 = 0, w1 = 0;
    /* w0: the index in base 90 (distinct names), printable */
    size_t k = i;
    for(int j=0; j<8; j++){
      unsigned c = 0x23 + (unsigned)(k % 90);   /* '#' .. '}' without the backslash */
      if( c>='\\' ) c++;
      w0 |= (uint64_t)c << (8*j); k /= 90;
    }
    if( bCollide ){
      uint64_t h1 = fl_step(h0, w0);
      do{
        uint64_t t = fl_rand() << 16;             /* any value whose low 16 bits are 0 */
        w1 = h1 ^ (fl_unxs29(fl_unfinal(t)) * m1inv);
      }while( !fl_printable(w1) );
    }else{
      do w1 = fl_rand(); while( !fl_printable(w1) );
    }
    memcpy(names + 16*i, &w0, 8); memcpy(names + 16*i + 8, &w1, 8);
  }
}

/* a tid colliding in the old thread table (bCollide) or a random one; the key's words are pid
** 1's {type INT (1), i 1, s 0} and the tid's {type INT, i tid, s 0} */
static int64_t fl_tid(int bCollide){
  if( !bCollide ) return (int64_t)(fl_rand() >> 1);
  const uint64_t m1inv = fl_inv(FL_M1);
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (48ull * 0xff51afd7ed558ccdull);
  h = fl_step(h, 1); h = fl_step(h, 1); h = fl_step(h, 0); h = fl_step(h, 1);
  uint64_t t = fl_rand() << 16;                      /* any value whose low 16 bits are 0 */
  uint64_t h5 = fl_unxs29(fl_unfinal(t)) * m1inv;    /* the state before the last word (s = 0) */
  uint64_t h4 = fl_unxs29(h5) * m1inv;               /* (state ^ tid) * M1 undone */
  return (int64_t)(h ^ h4);
}

#endif
