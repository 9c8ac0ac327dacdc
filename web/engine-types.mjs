// @ts-check
// The shapes of the engine's JSON, declared once: what the wasm binding (wasm/*Api.cpp) returns
// through web/engine.mjs (and the CLI's --json prints the same). The page's
// modules read results through these types, so `tsc -p
// tests/web/tsconfig.json` checks every read; tests/wasm/engine-types.test.mjs
// checks the real engine's JSON against them, both ways: a member declared
// here that the engine does not give (unless optional), and a member the
// engine gives that is not declared here, fail it. A member typed `Object`
// is not described further (its members are not checked).
//
// Nothing runs here: the module only holds types.

/**
 * The engine's error (engine/include/cachekey/Support.h): a stable `code`,
 * the JSON path of the problem and a message; `source` names the side of a
 * comparison ('a' baseline, 'b' perturbed) and `subject` what is unknown.
 * @typedef {{code: string, path: string, message: string, source?: string, subject?: string}} EngineError
 */
/**
 * What every call returns when it cannot answer.
 * @typedef {{error: EngineError}} Failure
 */
/**
 * A call's answer: the result, or the engine's refusal; `error` tells them
 * apart (set: nothing else is). Declared as the result's members, each
 * optional, beside an optional `error`: the page's check has no
 * strictNullChecks to narrow a union on `if (r.error)`, and a Failure (the
 * page's own, engineError) is one too. Every read is still checked by name
 * and type.
 * @template T
 * @typedef {Partial<T> & {error?: EngineError}} Result
 */
/**
 * A code the page branches on and the engine's words for it.
 * @typedef {{code: string, text: string}} Coded
 */
/**
 * One of the key's entries (keyResultToJson).
 * @typedef {Object} Entry
 * @property {number} index 1-based
 * @property {string} name JAX's entry name
 * @property {string} summary what was fed, in words
 * @property {number} bytes_len bytes fed to the digest
 * @property {string} preview_hex the first bytes, hex
 * @property {string} digest the entry's own SHA-256, hex
 * @property {string} running the running digest after this entry, hex
 * @property {boolean} [hashed] false when this release does not hash the entry
 * @property {{label: string, bytes_len: number, preview_hex: string}[]} [parts] the pieces fed, in order
 */
/**
 * The engine's key for one scenario (computeKey, and each side of compareScenarios).
 * @typedef {Object} KeyResult
 * @property {string} key "<module name>-<final running digest>"
 * @property {string} sym_name the module name the key starts with
 * @property {Entry[]} entries every entry in JAX's order
 * @property {string} profile the profile id that computed it
 * @property {string[]} trace JAX's DEBUG (and fallback INFO) log messages
 * @property {string[]} trace_levels "debug" or "info", one per trace line
 * @property {Coded[]} notes the engine's notes: what each is about ("live_entry1", "stand_in_fingerprint", "stdlib_zstd", …) and its words
 * @property {{flag: string, source: string, name: string, included: boolean, hashed_hex: string, collected: number, log_line: string}[]} flags entry 4, sorted
 * @property {Object<string, string[]>} collected the flags collected per source, in collection order
 * @property {string} compression the name fed to the compression entry
 * @property {{live?: boolean, producer?: string}} [computation] how entry 1 was made
 * @property {{fingerprint?: string, fallback?: boolean, provenance?: string, stand_in?: boolean}} [accelerator] entry 6
 * @property {{edits?: Array<{code: string, name?: string, number?: number, zero?: string, before?: string, after?: string, text: string}>}} [compile_options] entry 5's cache-key edits, as facts ({code, …fields, text})
 * @property {{jax_key?: boolean, unreadable_kernels?: number, text?: string, xla_flags?: Coded[]}} [fidelity] where the key is not JAX's, and why
 * @property {{jaxlib?: string, parsed?: Object[], reset?: Object[], moved_devices?: boolean, moved_target?: boolean}} [xla_flags] how XLA_FLAGS was read into DebugOptions
 * @property {{code: string, algorithm: string, python: string, text: string}} [compression_writes] when the process writes another algorithm than the key names
 */
/**
 * A fact about one entry's change ({code, entry, …fields, text}): the
 * fields are the code's own (before, after, flag, field, hashed_side, …).
 * @typedef {{code: string, entry: number, text: string} & Object<string, *>} Detail
 */
/**
 * A fact with the fields of its code ({code, …fields, text}).
 * @typedef {{code: string, text: string} & Object<string, *>} Finding
 */
/**
 * The engine's comparison of two keys (compareScenarios).
 * @typedef {Object} Comparison
 * @property {number} cause the first entry whose own digest differs (0: none)
 * @property {string} cause_name its name
 * @property {number[]} consequences entries that differ only through the running digest
 * @property {number[]} [with_cause] later entries whose own digest moved with the cause (see link)
 * @property {number[]} [also_changed] later entries whose own digest differs too
 * @property {Coded[]} roles per entry: code 'same', 'cause', 'with_cause', 'also_changed' or 'consequence', and its words
 * @property {string} sentence one sentence naming the cause
 * @property {{details: Detail[], other_details: Detail[], unhashed: Finding[], notes: Finding[]}} findings what moved, field by field, as facts ({code, …fields, text})
 * @property {{code: string, entries: number[], debug_flags: Array<{flag: string, field?: string, number?: number}>, cpu_flags: string[], text: string}} [link] why the entries in with_cause moved with the cause ('new_jaxlib', 'xla_flags' or 'none')
 * @property {Coded} [advice] what to do (the engine's Advice code and its words)
 */
/** @typedef {{comparison: Comparison, a: KeyResult, b: KeyResult}} CompareResult */
/**
 * A scenario with its "base" chain merged in (resolveScenario): every
 * ingredient, as docs/scenario.md describes.
 * @typedef {Object} ResolvedScenario
 * @property {number} [schema]
 * @property {string} [profile]
 * @property {{sym_name?: string, entry1_b64?: string|null, text?: string, include_metadata?: boolean, ignore_callbacks?: string}} [module]
 * @property {string} [jaxlib_version]
 * @property {{platform?: string, platform_version?: string}} [backend]
 * @property {{XLA_FLAGS?: ?string, LIBTPU_INIT_ARGS?: ?string, argv?: string[], extra_prefixes?: string[]}} [flags] (null: the variable is not set)
 * @property {Object} [compile_options]
 * @property {Object} [accelerator]
 * @property {string|Object} [compression]
 * @property {string} [custom_hook]
 */
/**
 * One profile: the releases that share one way of making the key (profileToJson).
 * @typedef {Object} Profile
 * @property {string} id
 * @property {string[]} releases
 * @property {Object<string, string>} jaxlibs each release's jaxlib: the one pip installs with it
 * @property {number} entry_count the entries this profile hashes
 * @property {{index: number, name: string, hashed: boolean}[]} entries every entry, hashed or not
 * @property {string} entry3
 * @property {string} entry6
 * @property {string} fallback
 * @property {string} callbacks
 * @property {string} mosaic
 * @property {string} compression
 * @property {boolean} filters_env_overrides
 * @property {boolean} explicit_zeroes
 * @property {string} fallback_error_type
 * @property {string[]} excluded_flags
 * @property {{name: string, number: number, kind: string}[]} zeroed_fields
 * @property {Object<string, string>} log_formats
 * @property {string} changes
 * @property {string} verified
 */
/**
 * The engine's version and constants (version()).
 * @typedef {Object} Version
 * @property {string} engine "cachekey <version>"
 * @property {number} schema the scenario schema it reads
 * @property {string[]} profiles the profile ids
 * @property {boolean} mlir it has the live MLIR canonicaliser
 * @property {number} permalink_max_chars a link's longest fragment
 * @property {number} permalink_max_json_bytes the most JSON a link may decompress to
 * @property {string} fresh_digest the running digest before any entry is fed (SHA-256 of no bytes), hex
 * @property {string[]} fixtures the fixtures registered
 */
/**
 * Every reproduced release (profiles()).
 * `default` is the alias a scenario that names no profile is computed with.
 * @typedef {{newest: string, default: string, aliases: Object<string, string>, profiles: Profile[]}} Profiles
 */
/**
 * One compression the picker offers (ScenarioChoices.h): a name given
 * directly (code 'name', with `name`) or a runtime (code 'runtime', with
 * `python` and `zstandard_installed`); `id` is the option's value, `value`
 * the scenario's `compression` member for it, `text` its label.
 * @typedef {{code: string, id: string, value: string|{python: string, zstandard_installed: boolean}, text: string,
 *   name?: string, python?: string, zstandard_installed?: boolean}} CompressionChoice
 */
/**
 * The values the page's pickers offer (scenarioChoices()): compressions for
 * entry 7, and platform_version strings for entry 3 (code 'cpu', 'gpu' or
 * 'gpu_plugin': which kind of backend reports it).
 * @typedef {{compression: CompressionChoice[], platform_versions: Array<{code: string, platform_version: string, text: string}>}} ScenarioChoices
 */
/**
 * A run's outcome for a program (LogFactsJson.cpp outcomeJson).
 * @typedef {{code: string, lookup: string, text: string, compile_seconds?: number, lookup_without_cache?: boolean,
 *   read_error?: string, lookup_inferred?: boolean, reason?: string, entry_bytes?: number, compile_only_read?: boolean, error?: string}} PairOutcome
 */
/**
 * One program pair of a two-log comparison (logComparisonToJson's `pairs`).
 * @typedef {{label: string, name: string, ordinal: number, in: string, keys: string, matched_by: string, cause: number,
 *   key_a?: string, key_b?: string, shapes_a?: Object, shapes_b?: Object,
 *   findings: {verdict: {code: string, text: string, shapes_in_a?: boolean, renamed_from?: string, renamed_to?: string}, move: ?Finding, miss: ?{code: string, text?: string}, outcome_a: ?PairOutcome, outcome_b: ?PairOutcome}}} Pair
 */
/**
 * One thing to do after a log comparison (what_to_do[]): its code and the
 * facts its words give (`settings`: the jax options the measured table of
 * `settings_release` says move what moved; `evictions_logged`: both runs
 * logged the LRU at DEBUG and neither evicted).
 * @typedef {{code: string, text: string, programs?: string[], entry?: number, amount?: number, limit?: number, value?: string,
 *   settings?: string[], settings_release?: string, evictions_logged?: boolean}} ToDo
 */
/**
 * Two runs' logs compared (compareLogs, compareManyLogSources with two;
 * LogCompare.h logComparisonToJson). The pairs are programs.mjs's.
 * @typedef {Object} LogComparison
 * @property {string} sentence
 * @property {string} summary
 * @property {number} cause
 * @property {string} cause_name
 * @property {number[]} consequences
 * @property {number[]} [with_cause]
 * @property {number[]} [also_changed]
 * @property {Object} [link]
 * @property {Coded[]} roles
 * @property {{details: Detail[], other_details: Detail[], unhashed: Finding[], notes: Finding[]}} findings
 * @property {string[]} entry_names
 * @property {Object[]} logs one per log: {name, lines, programs, hits, misses, stats, problems, …}
 * @property {Coded} paired_by how programs were paired
 * @property {Object} verdict the counts and the one line ({code, programs, missed, moved, …, text})
 * @property {number} matched_by_key
 * @property {ToDo[]} what_to_do what to do, each with the facts its words give
 * @property {Pair[]} pairs one per program
 * @property {Object} [explained]
 * @property {Coded} [advice]
 */
/**
 * One run's counts in a comparison of three or more logs (LogCompare.h
 * RunStats).
 * @typedef {Object} RunStats
 * @property {number} programs
 * @property {number} hits
 * @property {number} misses
 * @property {number} no_outcome programs logged without a hit or miss line
 * @property {?number} hit_rate null without hits or misses
 * @property {number} miss_compile_seconds
 * @property {number} timed_misses
 * @property {number} written
 * @property {number} evictions
 * @property {{code: string, count: number}[]} not_cached why misses were not written, by code
 * @property {string} text
 */
/**
 * One program across three or more runs (manyLogComparisonToJson's
 * `programs`): which runs share its key, and the odd ones out.
 * @typedef {Object} ProgramAcrossRuns
 * @property {string} label
 * @property {string} name
 * @property {Array<?string>} keys per run, its key (null: the run did not log it)
 * @property {number[][]} groups the runs grouped by key, in run order
 * @property {number} common the index in groups of the largest (-1: no key known)
 * @property {Array<{run: number, entries: number[], cause: number, move?: Finding}>} odd the runs outside the common group: the entries that differ, the first, and how it moved
 * @property {number[]} absent the runs that lack it
 * @property {string} text
 */
/**
 * Three or more runs' logs compared (compareManyLogSources; LogCompare.h
 * manyLogComparisonToJson): per program, which runs share a key.
 * @typedef {Object} ManyLogComparison
 * @property {Array<{name: string, stats: RunStats, odd_cause: ?Finding}>} logs one per run; odd_cause the one cause of all the run's odd programs, or null
 * @property {ProgramAcrossRuns[]} programs
 * @property {{notes: Finding[]}} findings
 * @property {{code: string, programs: number, same_key: number, odd: Array<{run: number, programs: number}>, text: string}} verdict the answer first (ManyLogVerdict): code one_key, odd_runs or not_in_every_run; of `programs` with a key, `same_key` have one key in every run; per odd run, its odd programs
 * @property {ToDo[]} what_to_do
 * @property {boolean} keys_differ
 */
/**
 * One program's entry in a cache folder (CacheDirJson.cpp entryJson).
 * @typedef {Object} CacheEntry
 * @property {string} key
 * @property {string} file
 * @property {number} size bytes on disk
 * @property {?number} decompressed bytes once decompressed (null: not read that far)
 * @property {string} codec
 * @property {number} compile_seconds
 * @property {number} last_access_ns
 * @property {string} last_access_from 'atime_file' or 'mtime'
 * @property {string} status 'ok' or how the entry is damaged
 * @property {?string} ifrt_outputs the executable's output specs, when read
 */
/**
 * A JAX cache folder read (readCacheFolder; CacheDir.h cacheReportToJson
 * plus `text`).
 * @typedef {Object} CacheReport
 * @property {string} dir
 * @property {string} layout
 * @property {string} rule the eviction rule the folder is read with
 * @property {boolean} rule_inferred
 * @property {boolean} whole_decoded
 * @property {number} entries
 * @property {number} entries_size
 * @property {boolean} lockfile
 * @property {boolean} atime_files
 * @property {{code: string, dir: string, entries: number, entries_size: number, layout: string, lockfile: boolean, atime_files: boolean,
 *   text: string}} summary the report's first line as a finding: code 'cache_summary', the counts it states, and its words
 * @property {Array<{code: string, module: string, keys: number, size: number, decompressed: number, decompressed_complete: boolean,
 *   compile_seconds: number, last_access_ns: number, text: string, entries: CacheEntry[]}>} programs one per module name
 * @property {Array<{code: string, file: string, text: string, status?: string, detail?: string, size?: number, capped_writes_fail?: boolean,
 *   link?: Object, counted_by_cap?: boolean, count_zstd?: number, count_zlib?: number, layout?: string, directory?: boolean,
 *   with_atime?: boolean}>} problems
 * @property {Array<{code: string, module: string, entries: number, shapes: string[], unread: number, text: string}>} hints
 * @property {{code: string, rule: string, max_size: number, next_entry: number, raise_reason: ?string, linked_size: number, double_counted: number,
 *   counted_size: number, raises_at: ?string, atime_links: string[],
 *   evicted: Array<{file: string, size: number, rank_ns: ?number, rank_from: string}>, evicted_count: number, text: string}} [eviction]
 *   what JAX's eviction pass would do under max_size (a put of next_entry bytes); rank_ns is null where rank_from is
 *   'atime_beyond_64_bits' or 'atime_link' (a value cachekey does not hold)
 * @property {string} text the CLI's report
 */
/**
 * One line of a module text diff (CaptureDiffJson.cpp diffLineToJson):
 * `op` is 'context', 'del' or 'add' (with `line`, the line without its
 * sign), 'file_a' or 'file_b' (with `file`), 'hunk' (with the ranges),
 * 'cut' (with `more_lines`) or 'too_large' (with `max_edits`, `lines_a`,
 * `lines_b`); all but the first three carry the printed `text`.
 * @typedef {Object} DiffLine
 * @property {string} op
 * @property {string} [line]
 * @property {string} [text]
 * @property {string} [file]
 * @property {number} [first_a] the hunk's first line of side A (1-based; for no lines, the line before)
 * @property {number} [count_a]
 * @property {number} [first_b]
 * @property {number} [count_b]
 * @property {number} [more_lines] lines left out after the diff's longest
 * @property {number} [max_edits] the edit limit beyond which no hunks are made
 * @property {number} [lines_a] each side's line count, when too large
 * @property {number} [lines_b]
 */
/**
 * Why a differing pair's module texts do or do not diff (moduleTextToJson).
 * @typedef {Object} ModuleText
 * @property {string} code 'none' (entry 1 did not move), 'same_text', 'not_captured', 'unreadable' or 'diff'
 * @property {string} text the engine's words ('diff': the unified diff as the CLI prints it)
 * @property {string} [sha256_a] the texts' SHA-256 (all but 'none')
 * @property {string} [sha256_b]
 * @property {boolean} [captured_a] whether the side kept its text
 * @property {boolean} [captured_b]
 * @property {DiffLine[]} [lines] 'diff': the diff, line by line
 */
/**
 * Two capture folders compared (compareCaptureFolders; CaptureDiff.h
 * captureComparisonToJson plus `text`).
 * @typedef {Object} CaptureComparison
 * @property {number} paired
 * @property {number} same_key
 * @property {Array<{program: string, occurrence: number, occurrence_b?: number, file_a: string, file_b: string, key_a: string, key_b: string,
 *   outcome_a: string, outcome_b: string, comparison: Object, also_findings: Object[], text_diff?: string, module_text?: ModuleText, generic_text_error?: Object}>} differing
 * @property {Object[]} only_a
 * @property {Object[]} only_b
 * @property {Object[]} unreadable
 * @property {Object[]} notes
 * @property {{code: string, paired: number, same_key: number, same_key_elsewhere: number, differing: number, only_a: number, only_b: number, unreadable: number, text: string}} summary
 * @property {string} text the CLI's report
 */

export {};
