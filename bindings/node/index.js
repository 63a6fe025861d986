/*
** libprofsql for Node: find libprofsql.so and load it into a SQLite connection.
**
**   const Database = require("better-sqlite3");
**   const libprofsql = require("libprofsql");
**   const db = new Database(":memory:");
**   libprofsql.load(db);                          // better-sqlite3: synchronous
**   db.prepare("SELECT count(*) AS n FROM profile_events(?)").get("trace.json");
**
**   const sqlite3 = require("sqlite3");           // node-sqlite3: load() returns a Promise
**   const db2 = new sqlite3.Database(":memory:");
**   await libprofsql.load(db2);
**
**   libprofsql.getLoadablePath();                 // '/usr/local/lib/x86_64-linux-gnu/libprofsql.so'
**
** The package holds no native code: it finds the library that `make` built or `make install`
** installed. getLoadablePath() returns the full path of the file, ".so" included (SQLite
** accepts the name with or without the suffix; with it the path names exactly one file),
** looking, in this order, at:
**
**   1. $LIBPROFSQL_PATH: the file (".so" may be left off, as for `.load`) or a directory
**      holding libprofsql.so. When the variable is set nothing else is searched: a path that
**      names no file is an error, not a reason to load some other copy.
**   2. libprofsql.so in this package's folder (a package built with a copy of the library put
**      beside index.js; the plain source package ships none).
**   3. /usr/local/lib/<triplet>/, /usr/local/lib/, /usr/lib/<triplet>/, /usr/lib/ (ld.so's order), <triplet>
**      being the Debian multiarch name (x86_64-linux-gnu) of process.arch, else what
**      `gcc -print-multiarch` prints. `make install` puts the library in /usr/local/lib/.
**
** load(db, {entryPoint}) loads it into db and returns the path:
**   - better-sqlite3 (and node:sqlite's DatabaseSync opened with allowExtension: true):
**     db.loadExtension(path[, entryPoint]), synchronously; returns the path.
**   - node-sqlite3 (sqlite3 on npm): db.loadExtension(path, callback); returns a Promise of
**     the path. node-sqlite3 cannot name an entry point, so entryPoint is refused there.
** entryPoint names another init function, e.g. "sqlite3_profsql_noio_init" for hosts that
** run untrusted SQL (BLOB sources only, no file writers); left out, SQLite derives
** sqlite3_profsql_init from the file name.
**
** Errors (Error objects; code says which):
**   LIBPROFSQL_NOT_FOUND  no library where it looked; the message lists every place and says
**                         how to get one (make, make install, LIBPROFSQL_PATH). Thrown, or
**                         for node-sqlite3 the Promise rejects with it, as with every error.
**   LIBPROFSQL_BAD_DB     db is neither kind of connection (always thrown), or entryPoint
**                         with node-sqlite3.
**   SQLite's own error    the file is not a loadable extension for this machine.
*/
"use strict";

const fs = require("fs");
const path = require("path");
const childProcess = require("child_process");

const LIBRARY = "libprofsql.so";
const ENV = "LIBPROFSQL_PATH";

/* Debian multiarch triplets of Node's process.arch values (Linux, glibc). */
const TRIPLETS = {
  x64: "x86_64-linux-gnu", arm64: "aarch64-linux-gnu", arm: "arm-linux-gnueabihf",
  ia32: "i386-linux-gnu", ppc64: "powerpc64le-linux-gnu", s390x: "s390x-linux-gnu",
  riscv64: "riscv64-linux-gnu", loong64: "loongarch64-linux-gnu", mips64el: "mips64el-linux-gnuabi64",
};

function error(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

/* The multiarch triplet, or null where there is none (not Linux, no gcc for an odd arch). */
function multiarch() {
  if (process.platform !== "linux") return null;
  if (TRIPLETS[process.arch]) return TRIPLETS[process.arch];
  try {
    const out = childProcess.execFileSync("gcc", ["-print-multiarch"], {
      encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10000,
    });
    return out.trim() || null;
  } catch (e) {
    return null;
  }
}

/* The files getLoadablePath() tries when LIBPROFSQL_PATH is not set, in order. */
function searchPath() {
  const dirs = [__dirname];
  const triplet = multiarch();
  // ld.so's order: what `make install` put under /usr/local comes before a distribution package
  if (triplet) dirs.push(`/usr/local/lib/${triplet}`, "/usr/local/lib", `/usr/lib/${triplet}`, "/usr/lib");
  else dirs.push("/usr/local/lib", "/usr/lib");
  return dirs.map((d) => path.join(d, LIBRARY));
}

function isFile(p, nonEmpty) {
  try {
    const st = fs.statSync(p);
    return st.isFile() && (!nonEmpty || st.size > 0);
  } catch (e) {
    return false;
  }
}

/* The file $LIBPROFSQL_PATH names: itself, itself + ".so", or libprofsql.so in it. */
function fromEnv(value) {
  const p = path.resolve(value);
  let candidates;
  try {
    candidates = fs.statSync(p).isDirectory() ? [path.join(p, LIBRARY)] : null;
  } catch (e) {
    candidates = null;
  }
  if (!candidates) candidates = p.endsWith(".so") ? [p] : [p + ".so", p];
  for (const c of candidates) if (isFile(c, true)) return c;
  throw error("LIBPROFSQL_NOT_FOUND",
    `libprofsql: ${ENV}='${value}' names no library (tried ${candidates.join(", ")}); point it at ` +
    `the libprofsql.so that \`make\` built, or unset it to search ${searchPath().join(", ")}`);
}

/* The full path of libprofsql.so to pass to loadExtension (see the header). */
function getLoadablePath() {
  const value = process.env[ENV];
  if (value) return fromEnv(value);
  const tried = searchPath();
  for (const p of tried) if (isFile(p, false)) return p;
  throw error("LIBPROFSQL_NOT_FOUND",
    "libprofsql: libprofsql.so not found. Looked in:\n" +
    [`$${ENV} (not set)`, ...tried].map((p) => `  ${p}\n`).join("") +
    `Build it with \`make\` in a libprofsql checkout and set ${ENV}=/path/to/checkout/libprofsql.so, ` +
    "or install it with `sudo make install` (/usr/local/lib/<multiarch>/libprofsql.so).");
}

/* node-sqlite3's Database: asynchronous methods with callbacks (better-sqlite3 has none). */
function isNodeSqlite3(db) {
  return typeof db.serialize === "function" && typeof db.each === "function" && typeof db.run === "function";
}

/* Loads libprofsql into db (better-sqlite3, node-sqlite3); see the header. */
function load(db, options) {
  const entryPoint = options && options.entryPoint;
  if (!db || typeof db.loadExtension !== "function") {
    throw error("LIBPROFSQL_BAD_DB",
      "libprofsql.load() takes a better-sqlite3 or node-sqlite3 Database (an object with loadExtension)");
  }
  if (isNodeSqlite3(db)) {
    return new Promise((resolve, reject) => {   // what the executor throws rejects it
      if (entryPoint) {
        throw error("LIBPROFSQL_BAD_DB",
          `libprofsql.load(): node-sqlite3's loadExtension cannot name an entry point (${entryPoint}); use better-sqlite3`);
      }
      const file = getLoadablePath();
      db.loadExtension(file, (err) => (err ? reject(err) : resolve(file)));
    });
  }
  const file = getLoadablePath();
  if (entryPoint) db.loadExtension(file, entryPoint);
  else db.loadExtension(file);
  return file;
}

module.exports = { getLoadablePath, load, searchPath, LIBRARY, ENV };
