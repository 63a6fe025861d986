#!/bin/sh
# sql/embed.sh FILE... — prints a C header holding each SQL file as a string constant
# (ps_sql_<file name without .sql>), so that profile_open() runs exactly the SQL in sql/.
# Used by the Makefile (build/sql_text.h); the files and the library cannot drift apart.
echo "/* Generated from the sql/ files by sql/embed.sh: do not edit. */"
for f in "$@"; do
  name=$(basename "$f" .sql)
  echo "static const char ps_sql_${name}[] ="
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$/\\n"/' "$f"
  echo "  ;"
done
