"""Reference side of tests/py/test_xprof.py: decodes xprof result protobufs with Debian's Python
protobuf (python3-protobuf) over a descriptor pool that protoc builds from the .proto files in
../shared/corpus/xprof/protos, and states the readers' JSON rule in Python.

The JSON rule (what libprofsql puts in `attrs`, `args` and JSON metadata values) is the proto3 JSON
mapping with the .proto field names, i.e. MessageToDict(m, preserving_proto_field_name=True,
including_default_value_fields=True), except that 64-bit integers are JSON numbers (MessageToDict
gives strings) and that an Any of a type the pool does not know is {"@type": url, "value": base64}
(MessageToDict raises). to_json() gives exactly that: MessageToDict for the scalars of each message,
its own recursion for sub-messages (so an unknown Any deep inside does not spoil the rest), 64-bit
integers turned back into ints by the field's type, float32 values wrapped in F32 so that same()
compares them with a relative tolerance of 1e-6 (doubles: 1e-12; NaN/Infinity are the strings
"NaN"/"Infinity"/"-Infinity" on both sides).

Nothing here reads libprofsql's output: the test compares the two."""
import base64
import math
import os
import shutil
import subprocess
import tempfile

PROTOS = os.path.join("..", "shared", "corpus", "xprof", "protos")
PKG = "plugin/tensorboard_plugin_profile/protobuf"    # the path the .proto files import each other by

INT64_TYPES = (3, 4, 6, 16, 18)    # FieldDescriptor.TYPE_INT64, UINT64, FIXED64, SFIXED64, SINT64
TYPE_FLOAT, TYPE_MESSAGE, TYPE_BOOL = 2, 11, 8


class F32(float):
    """A float32 field's value (compared with a relative tolerance of 1e-6)."""


def unavailable():
    """Why the reference cannot be built here (None when it can)."""
    if not os.path.isdir(PROTOS):
        return f"{PROTOS} not found (the corpus ships beside the repository, not in it)"
    if not shutil.which("protoc"):
        return "protoc not installed (Debian package protobuf-compiler)"
    if not os.path.exists("/usr/include/google/protobuf/any.proto"):
        return "/usr/include/google/protobuf/any.proto not found (Debian package libprotobuf-dev)"
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        return "Python protobuf not installed (Debian package python3-protobuf)"
    return None


class Ref:
    """The descriptor pool of every message in PROTOS (and google/protobuf/any.proto)."""

    def __init__(self):
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        self.tmp = tempfile.mkdtemp(prefix="xprof_ref.")
        self.root = os.path.join(self.tmp, "R")
        os.makedirs(os.path.join(self.root, PKG))
        names = sorted(n for n in os.listdir(PROTOS) if n.endswith(".proto"))
        for n in names:
            shutil.copy(os.path.join(PROTOS, n), os.path.join(self.root, PKG, n))
        desc = os.path.join(self.tmp, "all.desc")
        subprocess.run(["protoc", "-I" + self.root, "-I/usr/include", "--include_imports",
                        "--descriptor_set_out=" + desc] + [f"{PKG}/{n}" for n in names],
                       check=True, cwd=self.tmp)
        fds = descriptor_pb2.FileDescriptorSet()
        with open(desc, "rb") as f:
            fds.ParseFromString(f.read())
        self.pool = descriptor_pool.DescriptorPool()
        for fd in fds.file:
            self.pool.Add(fd)
        self.factory = message_factory.MessageFactory(self.pool)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def cls(self, full_name):
        return self.factory.GetPrototype(self.pool.FindMessageTypeByName(full_name))

    def parse(self, full_name, data):
        m = self.cls(full_name)()
        m.ParseFromString(data)
        return m

    def encode(self, txtpb_path):
        """protoc --encode of a .txtpb whose header names '# proto-file:' and '# proto-message:'."""
        head = dict(l[2:].split(": ", 1) for l in open(txtpb_path, encoding="utf-8").read().splitlines()
                    if l.startswith("# proto-"))
        with open(txtpb_path, "rb") as f:
            p = subprocess.run(["protoc", "-I" + self.root, "-I/usr/include",
                                "--encode=" + head["proto-message"].strip(), head["proto-file"].strip()],
                               stdin=f, capture_output=True, cwd=self.tmp)
        if p.returncode != 0:
            raise RuntimeError(p.stderr.decode())
        return head["proto-message"].strip(), p.stdout

    def unpack_any(self, any_msg):
        """The message inside an Any, or None when the pool does not know its type."""
        try:
            d = self.pool.FindMessageTypeByName(any_msg.type_url.split("/")[-1])
        except KeyError:
            return None
        m = self.factory.GetPrototype(d)()
        m.ParseFromString(any_msg.value)
        return m

    def _entry(self, field, key, val):
        e = self.factory.GetPrototype(field.message_type)()
        e.key = key
        e.value = val
        return e

    def to_json(self, msg):
        """msg as the JSON rule says (a dict; see the module comment)."""
        from google.protobuf import json_format
        d = msg.DESCRIPTOR
        if d.full_name == "google.protobuf.Any":
            inner = self.unpack_any(msg)
            if inner is None:
                return {"@type": msg.type_url, "value": base64.b64encode(msg.value).decode()}
            return dict({"@type": msg.type_url}, **self.to_json(inner))
        sub = [f for f in d.fields if f.type == TYPE_MESSAGE]
        scalars = msg
        if sub:
            scalars = type(msg)()
            scalars.CopyFrom(msg)
            for f in sub:
                scalars.ClearField(f.name)
        out = json_format.MessageToDict(scalars, preserving_proto_field_name=True,
                                        including_default_value_fields=True)
        for k in list(out):
            f = d.fields_by_name[k]
            if f.type == TYPE_MESSAGE:
                continue
            if f.label == f.LABEL_REPEATED:
                out[k] = [_scalar(v, f) for v in out[k]]
            else:
                out[k] = _scalar(out[k], f)
        for f in sub:
            v = getattr(msg, f.name)
            if f.message_type.GetOptions().map_entry:
                vf = f.message_type.fields_by_name["value"]
                kf = f.message_type.fields_by_name["key"]
                if vf.type == TYPE_MESSAGE:
                    out[f.name] = {_key(key, kf): self.to_json(val) for key, val in v.items()}
                else:       # the entry's own MessageToDict renders the value (enum names, NaN, bytes)
                    out[f.name] = {_key(key, kf): _scalar(json_format.MessageToDict(
                        self._entry(f, key, val), preserving_proto_field_name=True,
                        including_default_value_fields=True)["value"], vf) for key, val in v.items()}
            elif f.label == f.LABEL_REPEATED:
                out[f.name] = [self.to_json(x) for x in v]
            elif msg.HasField(f.name):
                out[f.name] = self.to_json(v)
        return out


def _key(key, kf):
    if kf.type == TYPE_BOOL:
        return "true" if key else "false"
    return str(key)


def _scalar(v, f):
    if f.type in INT64_TYPES and isinstance(v, str):
        return int(v)
    if f.type == TYPE_FLOAT and isinstance(v, float):
        return F32(v)
    return v


def same(ours, ref, path="$"):
    """None when ours (json.loads of libprofsql's text) equals ref (to_json) under the JSON rule;
    else the path of the first difference and the two values."""
    if isinstance(ref, dict):
        if not isinstance(ours, dict):
            return f"{path}: {ours!r} is not an object"
        if set(ours) != set(ref):
            return f"{path}: keys differ: only ours {sorted(set(ours) - set(ref))}, only ref {sorted(set(ref) - set(ours))}"
        for k in ref:
            r = same(ours[k], ref[k], f"{path}.{k}")
            if r:
                return r
        return None
    if isinstance(ref, list):
        if not isinstance(ours, list) or len(ours) != len(ref):
            return f"{path}: {ours!r} != {ref!r}"
        for i, (a, b) in enumerate(zip(ours, ref)):
            r = same(a, b, f"{path}[{i}]")
            if r:
                return r
        return None
    if isinstance(ref, bool) or isinstance(ours, bool):
        return None if type(ours) is type(ref) and ours == ref else f"{path}: {ours!r} != {ref!r}"
    if isinstance(ref, float):
        if not isinstance(ours, (int, float)):
            return f"{path}: {ours!r} != {ref!r}"
        tol = 1e-6 if isinstance(ref, F32) else 1e-12
        ok = math.isclose(ours, ref, rel_tol=tol, abs_tol=0.0)
        return None if ok else f"{path}: {ours!r} != {ref!r}"
    if isinstance(ref, int):
        return None if isinstance(ours, int) and ours == ref else f"{path}: {ours!r} != {ref!r}"
    return None if ours == ref and type(ours) is type(ref) else f"{path}: {ours!r} != {ref!r}"
