"""Generated call trees for the tree-view tests (tests/py/test_tree_scale.py, test_folded_scale.py).
A tree is a list of (parent index or None, name, self time) in pre-order: a parent before its
children, a subtree contiguous."""


def inclusive(tree):
    """Each node's inclusive time: its self time and its descendants' (one reverse pass, since a
    child comes after its parent)."""
    dur = [s for _, _, s in tree]
    for i in range(len(tree) - 1, -1, -1):
        if tree[i][0] is not None:
            dur[tree[i][0]] += dur[i]
    return dur


def timings_txt(tree):
    """The tree as a PocketMine-MP tree-style timings report (RecordId / ParentRecordId), each
    record's Time its inclusive time."""
    dur = inclusive(tree)
    out = ["Minecraft ThreadId: 1"]
    for i, (p, name, _) in enumerate(tree):
        out.append(f"    {name} Time: {dur[i]} Count: 1 Avg: {dur[i]} Violations: 0 RecordId: {i + 1} "
                   f"ParentRecordId: {'none' if p is None else p + 1} TimerId: {i + 1}")
    out += ["# Version v1.20.0", "# PocketMine-MP 5.0.0", "# FormatVersion 3", "Sample time 1000000 (0.001s)", ""]
    return "\n".join(out)
