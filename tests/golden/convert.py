#!/usr/bin/env python3
"""Converts the golden JSON vectors (../shared/golden/vectors beside the repository root, schema in its SCHEMA.md) into
tests/golden/golden-cases.h, a C header of static arrays and one table of cases.

Run once when the vectors change; its output is committed so the tests need neither Python nor the
JSON files at run time:

    python3 tests/golden/convert.py ../shared/golden/vectors > tests/golden/golden-cases.h

Without an argument it reads ../shared/golden/vectors relative to the repository root.

Every case keeps its source attribution (repository, commit, paths, test, line, provenance,
generator comment, derivation, notes) as strings in the table.

The JSON gives only the leading padding; the trailing padding is the smallest that yields the
stated output shape (padded taps contribute nothing, so any larger value that keeps the output
shape would give the same numbers). The script checks that TFLite's output-size formula then
reproduces the stated shape.
"""
import glob
import json
import os
import sys

OPS = {"conv2d": "GOLDEN_CONV2D", "depthwise_conv2d": "GOLDEN_DEPTHWISE", "add": "GOLDEN_ADD"}


def c_string(s):
    if s is None:
        return "NULL"
    s = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + s + '"'


def c_array(ctype, name, values, per_line=24):
    if values is None:
        return None
    lines = []
    for i in range(0, len(values), per_line):
        lines.append("  " + ", ".join(str(v) for v in values[i:i + per_line]) + ",")
    if not values:
        lines.append("  0,")  # C forbids empty arrays; length is stored separately
    return "static const %s %s[] = {\n%s\n};\n" % (ctype, name, "\n".join(lines))


def c_float(v):
    # The JSON holds float32 values printed as doubles; the double literal converts exactly.
    return "(float) %r" % float(v)


def trailing_pad(in_size, out_size, k, stride, dil, pad_before):
    return max(0, (out_size - 1) * stride + dil * (k - 1) + 1 - in_size - pad_before)


def out_size(in_size, pad_before, pad_after, k, stride, dil):
    return (in_size + pad_before + pad_after - dil * (k - 1) - 1) // stride + 1


def shape_init(shape):
    dims = list(shape) + [0] * (6 - len(shape))
    return "%d, {%s}" % (len(shape), ", ".join(str(d) for d in dims))


def tests_string(src):
    if "test" in src:
        return src["test"]
    parts = []
    for t in src.get("tests", []):
        parts.append("%s: %s" % (t["file"], ", ".join(t["functions"])))
    return "; ".join(parts)


def convert(path, index, out):
    d = json.load(open(path))
    assert d["schema_version"] == 1
    cid = d["id"]
    sym = "g%02d" % index
    p = d["params"]
    src = d["source"]
    fields = {
        "id": c_string(cid),
        "op": OPS[d["op"]],
        "repo": c_string(src["repo"]),
        "commit": c_string(src["commit"]),
        "paths": c_string("; ".join(src["paths"])),
        "test": c_string(tests_string(src)),
        "line": str(src.get("line", 0)),
        "generator_comment": c_string(src.get("generator_comment")),
        "source_note": c_string(src.get("note")),
        "provenance": c_string(d["provenance"]),
        "derivation": c_string(d.get("derivation")),
        "notes": c_string(d.get("notes")),
        "tolerance": str(d["expected_tolerance"]),
        "output_zero_point": str(p["output_zero_point"]),
        "activation_min": str(p["activation_min"]),
        "activation_max": str(p["activation_max"]),
    }
    expected = d["expected_output"]
    out.write("/* %s */\n" % cid)
    out.write(c_array("int8_t", sym + "_expected", expected))
    fields["expected"] = sym + "_expected"
    fields["expected_size"] = str(len(expected))

    if d["op"] == "add":
        out.write(c_array("int8_t", sym + "_a", d["input1"]))
        out.write(c_array("int8_t", sym + "_b", d["input2"]))
        fields.update({
            "a": sym + "_a", "b": sym + "_b",
            "a_shape": "{%s}" % shape_init(d["input1_shape"]),
            "b_shape": "{%s}" % shape_init(d["input2_shape"]),
            "out_shape": "{%s}" % shape_init(d["output_shape"]),
            "add_zero_points": "{%d, %d}" % (p["input1_zero_point"], p["input2_zero_point"]),
            "add_fixed": "{%d, %d, %d, %d, %d, %d, %d}" % (
                p["left_shift"], p["input1_multiplier"], p["input1_shift"], p["input2_multiplier"],
                p["input2_shift"], p["output_multiplier"], p["output_shift"]),
        })
        if "input1_scale" in p:
            fields["has_scales"] = "1"
            fields["add_scales"] = "{%s, %s}" % (c_float(p["input1_scale"]), c_float(p["input2_scale"]))
            fields["output_scale"] = c_float(p["output_scale"])
    else:
        n, h, w, c = d["input_shape"]
        on, oh, ow, oc = d["output_shape"]
        _, kh, kw, _ = d["filter_shape"]
        assert on == n
        sh, sw, dh, dw = p["stride_h"], p["stride_w"], p["dilation_h"], p["dilation_w"]
        pt, pl = p["pad_top"], p["pad_left"]
        pb = trailing_pad(h, oh, kh, sh, dh, pt)
        pr = trailing_pad(w, ow, kw, sw, dw, pl)
        assert out_size(h, pt, pb, kh, sh, dh) == oh, cid
        assert out_size(w, pl, pr, kw, sw, dw) == ow, cid
        if d["op"] == "depthwise_conv2d":
            dm = p["depth_multiplier"]
            assert d["filter_shape"][0] == 1 and d["filter_shape"][3] == c * dm == oc, cid
        else:
            dm = 1
            assert d["filter_shape"][0] == oc and d["filter_shape"][3] == c, cid
        mult, shift = p["per_channel_multiplier"], p["per_channel_shift"]
        assert len(mult) == oc and len(shift) == oc, cid
        assert len(d["input"]) == n * h * w * c and len(expected) == n * oh * ow * oc, cid
        out.write(c_array("int8_t", sym + "_input", d["input"]))
        out.write(c_array("int8_t", sym + "_filter", d["filter"]))
        out.write(c_array("int32_t", sym + "_multiplier", mult, 8))
        out.write(c_array("int32_t", sym + "_shift", shift))
        if d["bias"] is not None:
            out.write(c_array("int32_t", sym + "_bias", d["bias"], 12))
            fields["bias"] = sym + "_bias"
        fields.update({
            "input": sym + "_input", "filter": sym + "_filter",
            "multiplier": sym + "_multiplier", "shift": sym + "_shift",
            "geometry": "{%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d}" % (
                n, h, w, c, oc, dm, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl, pb, pr),
            "input_zero_point": str(p["input_zero_point"]),
        })
        if "input_scale" in p:
            fs = p["filter_scales"]
            assert len(fs) == oc, cid
            out.write("static const float %s_filter_scales[] = {%s};\n" % (sym, ", ".join(c_float(v) for v in fs)))
            fields["has_scales"] = "1"
            fields["input_scale"] = c_float(p["input_scale"])
            fields["output_scale"] = c_float(p["output_scale"])
            fields["filter_scales"] = sym + "_filter_scales"
    out.write("\n")
    return "  {\n" + "".join("    .%s = %s,\n" % (k, v) for k, v in fields.items()) + "  },\n"


def main():
    repo_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    default_dir = os.path.join(repo_root, "..", "shared", "golden", "vectors")
    src_dir = sys.argv[1] if len(sys.argv) > 1 else default_dir
    files = sorted(glob.glob(os.path.join(src_dir, "*.json")))
    out = sys.stdout
    out.write("/* Generated by tests/golden/convert.py from %d golden JSON vectors (schema_version 1).\n"
              "   Do not edit: rerun the script. Each entry keeps its source attribution. */\n" % len(files))
    out.write("#include \"golden/golden-case.h\"\n\n")
    entries = [convert(f, i, out) for i, f in enumerate(files)]
    out.write("static const struct golden_case golden_cases[] = {\n%s};\n" % "".join(entries))
    out.write("#define GOLDEN_NUM_CASES %d\n" % len(files))


if __name__ == "__main__":
    main()
