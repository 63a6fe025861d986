"""libprofsql: the former name of the profsql module (`import profsql`), kept so that code written
for it still runs. Importing it gives the profsql module itself (libprofsql is profsql).

Under this name the module is shadowed by the library file: in a folder that holds libprofsql.so
(the repository root), `import libprofsql` finds that file first (Python takes any *.so as an
extension module) and fails with "dynamic module does not define module export function
(PyInit_libprofsql)". `import profsql` has no such trap.
"""
import sys

import profsql

sys.modules[__name__] = profsql
