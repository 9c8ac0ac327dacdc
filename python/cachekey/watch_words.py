"""The English of ``cachekey.watch``: one function per finding family.

The watch's analysis (``cachekey.watch``) returns facts, a ``code`` and its
fields; this module alone turns them into sentences.  What moved inside a
key is the engine's own words (``cachekey diff --json``: ``sentence`` and
``advice.text``), quoted as they are, never re-worded here.  No code reads
these sentences back.
"""

from __future__ import annotations

_REASONS = {
    "min_compile_time": "it compiled in {secs:.2f} s, under jax_persistent_cache_min_compile_time_secs "
                        "({min_secs:.2f} s)",
    "entry_size": "its executable ({size} bytes) was under "
                  "jax_persistent_cache_min_entry_size_bytes ({threshold} bytes)",
    "host_callbacks": "it uses host callbacks (jax.debug.print, breakpoint), which JAX does not cache",
    "process_id": "only process 0 writes the cache, and this was another process",
    "cache_disabled": "the cache was disabled or not initialized",
    "write_error": "writing it failed",
    "other": "JAX logged why",
}

_ADVICE = {
    "min_compile_time": "lower jax_persistent_cache_min_compile_time_secs (0 caches every program)",
    "entry_size": "lower jax_persistent_cache_min_entry_size_bytes",
    "host_callbacks": "nothing: a program with host callbacks is compiled in every run",
    "process_id": "nothing: process 0 writes the entries every process reads",
    "cache_disabled": "set jax_compilation_cache_dir before the first compilation",
    "write_error": "check that the cache directory is writable and has room",
    "other": "see JAX's log line below",
}


def _when(rec: dict) -> str:
    w = rec["watch"]
    where = w.get("cache_dir") or "?"
    who = f"pid {w.get('pid')} on {w.get('host')}" if w.get("pid") else "an earlier run"
    cmd = " ".join(w.get("argv") or [])
    return f"at {w['time']} by {who}" + (f" ({cmd})" if cmd else "") + f" into {where}"


def _short(key: str) -> str:
    name, _, digest = key.rpartition("-")
    return f"{name}-{digest[:12]}…" if digest else key


def miss_text(f: dict) -> str:
    """The warning for one persistent-cache miss (a finding of ``Watch.explain``)."""
    code = f["code"]
    head = f"persistent-cache miss: {f['program']} (key {_short(f['key'])})"
    rec = f.get("record")
    lines = []
    if code == "key_moved":
        how = "same name and input shapes" if f["matched_by"] == "name_and_inputs" else "same name"
        lines.append(f"nearest earlier entry ({how}): {_short(rec['key'])}, written {_when(rec)}")
        if f.get("other_directory"):
            lines.append("that entry is in the index of another cache directory "
                         f"({f['other_directory']}): this run uses {f['cache_dir']}")
        if f.get("inputs_before") != f.get("inputs_after") and f.get("inputs_before") is not None:
            lines.append("input shapes: " + ", ".join(f["inputs_before"]) + " → "
                         + ", ".join(f["inputs_after"] or []))
        if f.get("sentence"):
            lines.append(f["sentence"].strip())
        else:
            lines.append(f"the first entry that moved is entry {f['first_moved']} "
                         f"({f['first_moved_name']}); the engine could not say how: "
                         f"{f.get('engine_error', '')}")
        advice = f.get("advice")
        lines.append("what to do: " + (advice if advice else
                                       "make this run's ingredients match that entry's"))
    elif code == "new_program":
        lines.append(f"no earlier entry of {f['program']} in the index "
                     f"({f['index_records']} records): a first compile, nothing to compare")
        lines.append("what to do: nothing; the next run with the same ingredients should hit")
    elif code == "never_written":
        reason = _REASONS.get(f["reason_code"], _REASONS["other"]).format(**_defaults(f))
        lines.append(f"the same key was compiled {_when(rec)}, but never written: {reason}")
        lines.append("what to do: " + _ADVICE.get(f["reason_code"], _ADVICE["other"]))
        if f.get("reason"):
            lines.append("JAX: " + f["reason"])
    elif code == "compile_only_client":
        client = f"this run's {f['platform']} client" if f.get("platform") else "this run's client"
        lines.append(f"JAX found this key's entry, but {client} is compile-only (a deviceless, "
                     "ahead-of-time compile) and cannot load any entry: " + f["read_error"])
        lines.append("the entry is not damaged" + (f": it was written {_when(rec)}" if rec else ""))
        lines.append("what to do: nothing to delete, and deleting the entry changes nothing: a "
                     "compile-only client writes entries but never loads one, so each deviceless "
                     "compile compiles again and such a run never hits")
    elif code == "check_contents":
        lines.append(f"its entry was in {f['cache_dir']} when JAX looked the key up, and JAX "
                     "compiled anyway: jax_compilation_cache_check_contents is on, so each "
                     "process compiles every key once to check its entry against the fresh "
                     "executable")
        lines.append("what to do: set jax_compilation_cache_check_contents back to False (its "
                     "default); the entry is fine")
    elif code == "damaged":
        lines.append("JAX found this key's entry but could not read it (a damaged entry): "
                     + f["read_error"])
        if rec:
            lines.append(f"the entry was written {_when(rec)}")
        if f.get("entry_present") is False:
            lines.append("what to do: nothing; its file is gone, and the next write replaces it")
        else:
            lines.append(f"what to do: delete its file ({f['key']}-cache) from "
                         f"{f['cache_dir']}: JAX never replaces an existing entry, so this key "
                         "misses on every run until the file is removed")
    elif code == "evicted":
        lines.append(f"the same key was written {_when(rec)}, and its entry is gone from "
                     f"{f['cache_dir']}: evicted (jax_compilation_cache_max_size) or removed")
        lines.append("what to do: raise jax_compilation_cache_max_size (-1: no limit), "
                     "or keep the directory from being cleaned")
    elif code == "another_directory":
        lines.append(f"the same key was written {_when(rec)}: another cache directory; "
                     f"this run reads {f['cache_dir']}")
        lines.append("what to do: point jax_compilation_cache_dir at the directory the "
                     "entries are in")
    elif code == "present_not_read":
        lines.append(f"the same key was written {_when(rec)}, and its file is still in "
                     f"{f['cache_dir']}, yet JAX did not read it")
        lines.append("what to do: check that this run reads that directory "
                     "(jax_compilation_cache_dir, set before the first compilation)")
    else:
        lines.append(f"({code})")
    return head + "\n  " + "\n  ".join(lines)


def _defaults(f: dict) -> dict:
    v = {"secs": 0.0, "min_secs": 0.0, "size": "?", "threshold": "?"}
    v.update(f.get("reason_values") or {})
    return v


def cause_label(f: dict) -> str:
    """A short name for a miss's cause, for the summary's counts."""
    code = f["code"]
    if code == "key_moved":
        if f.get("cause"):
            return f"entry {f['cause']} ({f['cause_name']}) moved"
        return f"entry {f['first_moved']} ({f['first_moved_name']}) moved"
    if code == "never_written":
        return f"never written ({f['reason_code'].replace('_', ' ')})"
    return {"new_program": "first compile", "damaged": "damaged entry", "evicted": "evicted",
            "compile_only_client": "found, but a compile-only client cannot load entries",
            "another_directory": "another cache directory",
            "present_not_read": "entry present, not read",
            "check_contents": "found, compiled to check it (check_contents)"}.get(code, code)


def summary_text(s: dict) -> str:
    """The run summary (``Watch.summary()``), as ``sccache --show-stats`` gives one."""
    if not s["compilations"]:
        return ("cachekey.watch: no compilation went through the persistent compilation cache "
                "(set jax_compilation_cache_dir): nothing to explain")
    rate = 100.0 * s["hits"] / s["compilations"]
    lines = [f"cachekey.watch: {s['programs']} program{'s' if s['programs'] != 1 else ''}, "
             f"{s['compilations']} compilation{'s' if s['compilations'] != 1 else ''} "
             f"through the persistent cache: {s['hits']} hit{'s' if s['hits'] != 1 else ''}, "
             f"{s['misses']} miss{'es' if s['misses'] != 1 else ''} (hit rate {rate:.0f}%), "
             f"{s['compile_seconds_on_misses']:.2f} s compiling on misses"]
    for label, n in s["causes"]:
        lines.append(f"  {n} × {label}")
    lines.append(f"  index: {s['index']} ({s['index_records']} records"
                 + (f", {s['index_evicted']} least recently used removed" if s["index_evicted"] else "")
                 + ")")
    if s["failures"]:
        lines.append(f"  {s['failures']} failure{'s' if s['failures'] != 1 else ''} inside the watch "
                     "(each warned once); the program was not affected")
    return "\n".join(lines)


def skipped_text(index_path: str, skipped: list[dict]) -> str:
    """The warning for what loading an index skipped (``Index.skipped``)."""
    partial = [s for s in skipped if s["code"] == "partial_write"]
    broken = [s for s in skipped if s["code"] == "unreadable_record"]
    parts = []
    if partial:
        parts.append(f"{len(partial)} record{'s' if len(partial) != 1 else ''} half-written by a "
                     "run that ended while writing (" + ", ".join(s["file"] for s in partial[:3]) + ")")
    if broken:
        parts.append(f"{len(broken)} unreadable record{'s' if len(broken) != 1 else ''} ("
                     + "; ".join(f"{s['file']}: {s['error']}" for s in broken[:3]) + ")")
    return (f"the ingredients index {index_path}: skipped and removed " + " and ".join(parts)
            + "; every other record was read")


def failure_text(where: str, error: str) -> str:
    """The one warning for a failure inside the watch."""
    return f"cachekey.watch failed ({where}: {error}); your program goes on unaffected"
