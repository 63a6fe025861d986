/*
** simdjson_agg.cpp — the simdjson On-Demand baseline of make bench (issue 18: "within 1.1x of
** simdjson's On-Demand aggregate run in the same bench"): what a user who reaches for the fastest
** JSON library writes instead of the GROUP BY query
**
**   SELECT name, count(*), sum(dur) FROM profile_events('trace.json') GROUP BY name;
**
** over a Trace Event Format file (an array of events, or an object with traceEvents):
** every event once, its fields in one pass (no lookup by key), counted per name, with the sum of
** its numeric "dur" (µs) in ns. The file is read with padded_string::load, simdjson's own way.
**
**   simdjson_agg FILE     prints "<groups> <events> <events with dur> <sum of dur, ns>"
**
** Exit status 1 with simdjson's message on a file it cannot read or parse. Built by make bench
** when Debian's libsimdjson-dev is installed (bench.py skips it, saying so, when not). Not part of
** the extension: C++, and only a yardstick.
*/
#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>

using namespace simdjson;

namespace {

struct Agg { long long n = 0; long long durNs = 0; };

struct Totals {
  std::unordered_map<std::string, Agg> groups;
  long long nEvents = 0, nDur = 0, durNs = 0;
};

/* One event object: its name and dur in one pass over its fields. */
error_code add_event(ondemand::object obj, Totals &t){
  std::string_view name;
  long long durNs = 0;
  bool hasDur = false;
  for( auto field : obj ){
    ondemand::raw_json_string key;
    error_code err = field.key().get(key);
    if( err ) return err;
    if( key=="name" ){
      if( field.value().get_string().get(name) ) name = std::string_view();   /* null, a number: "" */
    }else if( key=="dur" ){
      double d;
      if( field.value().get_double().get(d)==SUCCESS ){ durNs = std::llround(d * 1000.0); hasDur = true; }
    }
  }
  auto it = t.groups.find(std::string(name));
  if( it==t.groups.end() ) it = t.groups.emplace(std::string(name), Agg()).first;
  it->second.n++;
  t.nEvents++;
  if( hasDur ){ it->second.durNs += durNs; t.nDur++; t.durNs += durNs; }
  return SUCCESS;
}

error_code add_array(ondemand::array arr, Totals &t){
  for( auto v : arr ){
    ondemand::object obj;
    error_code err = v.get_object().get(obj);
    if( err ) return err;
    if( (err = add_event(obj, t)) ) return err;
  }
  return SUCCESS;
}

}  // namespace

int main(int argc, char **argv){
  if( argc<2 ){ std::fprintf(stderr, "usage: simdjson_agg FILE\n"); return 2; }
  padded_string json;
  error_code err = padded_string::load(argv[1]).get(json);
  if( err ){ std::fprintf(stderr, "%s: %s\n", argv[1], error_message(err)); return 1; }
  ondemand::parser parser;
  ondemand::document doc;
  Totals t;
  err = parser.iterate(json).get(doc);
  ondemand::json_type type;
  if( !err ) err = doc.type().get(type);
  if( !err && type==ondemand::json_type::array ){
    ondemand::array arr;
    err = doc.get_array().get(arr);
    if( !err ) err = add_array(arr, t);
  }else if( !err ){
    ondemand::array arr;
    err = doc.find_field_unordered("traceEvents").get_array().get(arr);
    if( !err ) err = add_array(arr, t);
  }
  if( err ){ std::fprintf(stderr, "%s: %s\n", argv[1], error_message(err)); return 1; }
  std::printf("%zu %lld %lld %lld\n", t.groups.size(), t.nEvents, t.nDur, t.durNs);
  return 0;
}
