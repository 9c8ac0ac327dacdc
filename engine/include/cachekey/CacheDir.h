//===- CacheDir.h - Reading a JAX persistent compilation cache --*- C++ -*-===//
//
// `cachekey cache-dir DIR` reads the directory `jax_compilation_cache_dir`
// names, read-only, and reports what is in it (programs, their keys, sizes,
// recorded compile seconds, last access), what is wrong with it (damaged
// entries, orphans, leftovers, foreign files) and what a size cap would evict.
//
// The format, per release (files of jax-ml/jax, read in the installed wheels):
//
// - jax 0.4.30, jax/_src/lru_cache.py: an entry is one file named by the key;
//   `get` touches it (line 101) and `_evict_if_needed` (line 144) ranks every
//   regular file of the directory — `.lockfile` included — by st_mtime_ns
//   (line 162), oldest first, ties by path.
// - jax 0.4.31 – 0.11.1, lru_cache.py: `<key>-cache` plus `<key>-atime`, the
//   8-byte little-endian time.time_ns() of the last get or put; eviction ranks
//   the `*-cache` files only, by (atime, key), and reads every `-atime`
//   without checking that it exists (0.4.35 line 186, 0.10.2 line 188), so
//   one `-cache` without its `-atime` makes every capped put raise. 0.4.31 –
//   0.5.0 write `-atime` on every get and put; later releases only with a cap.
// - jax 0.11.2 and later (0.12.0.1 lru_cache.py lines 165–217): a missing
//   `-atime` counts as time 0 (lines 190–196).
// - All: eviction runs in `put` before the write, while the directory's size
//   exceeds `max_size - len(new value)`; a key is `<module name>-<64 hex>`.
// - The value (compilation_cache.py, 0.12.0.1 lines 457–487; 0.4.30 lines
//   284–310): compress(4-byte big-endian whole compile seconds + the
//   serialized executable), zstd when the zstandard package (or, on Python
//   3.14, compression.zstd) imports, otherwise zlib (0.12.0.1 lines 296–312).
// - jax 0.10.2 and 0.12.0.1 (jaxlib's IFRT; seen in the fixtures' real
//   entries, absent in 0.4.30 and 0.4.35): the serialized executable starts with a varint
//   length and an xla.ifrt.SerializedXlaExecutableMetadata protobuf (field 1
//   version, 2 runtime "pjrt_ifrt", 5 output specs with shape and dtype, 7
//   computation name), then the PJRT executable. Earlier releases store none.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_CACHEDIR_H
#define CACHEKEY_CACHEDIR_H

#include "cachekey/EvictionRule.h"
#include "cachekey/Json.h"
#include "cachekey/Support.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cachekey {

/// The compression the first bytes say: zstd frames start 28 b5 2f fd
/// (RFC 8878 §3.1.1), zlib streams with the deflate/32 KiB CMF byte 0x78 and a
/// FLG byte making (CMF·256+FLG) a multiple of 31 (RFC 1950 §2.2; Python's
/// zlib.compress writes 78 9c).
enum class Codec : uint8_t { Unknown, Zstd, Zlib };
const char *codecName(Codec c); ///< "unknown", "zstd", "zlib"

/// One output (or parameter) of an IFRT header: dtype and dimensions.
struct IfrtArraySpec {
  int dtype = 0;              ///< xla PrimitiveType number (11 = F32)
  std::vector<int64_t> dims;  ///< major to minor
  /// "f32[64,8]" (the names of xla/xla_data.proto's PrimitiveType, lower case).
  std::string str() const;
};

/// What the IFRT header of a jax 0.12 entry says.
struct IfrtHeader {
  std::string computationName;        ///< field 7
  std::string runtime;                ///< field 2, "pjrt_ifrt"
  int64_t version = 0;                ///< field 1
  std::vector<IfrtArraySpec> outputs; ///< field 5, in order
  size_t bytes = 0;                   ///< the header's length with its varint
};

/// What decoding an entry's bytes found.
enum class EntryStatus : uint8_t {
  Ok,
  TooShort,       ///< fewer than 4 bytes once decompressed (or an empty file)
  NotCompressed,  ///< neither zstd nor zlib magic
  Truncated,      ///< the compressed stream stops before its end (a write cut short)
  Corrupt,        ///< the compressed stream does not decode
};
const char *entryStatusName(EntryStatus s);

/// What `readEntry` learnt from the value of one cache entry.
struct EntryFacts {
  Codec codec = Codec::Unknown;
  EntryStatus status = EntryStatus::Ok;
  std::string detail;                ///< the decoder's own message, for Corrupt/Truncated
  uint32_t compileSeconds = 0;       ///< the 4-byte big-endian prefix; 0 unless status Ok
  /// The decompressed length: from the zstd frame header or a whole decode;
  /// unset when only a head of a zlib stream was decoded.
  std::optional<uint64_t> decompressed;
  bool wholeDecoded = false;         ///< every byte was decompressed (and checked)
  bool hasIfrt = false;              ///< jax 0.12 entries: an IFRT header was read
  std::string outputs;               ///< its output specs, shapesText(IfrtHeader::outputs)
};

/// Limits of `readEntry`. Decompression never produces more than
/// `headBytes` bytes of output unless `whole` is set; with `whole` the
/// output is streamed through a fixed buffer and counted, up to `wholeLimit`
/// bytes (then status Corrupt, "over the limit").
struct EntryLimits {
  size_t headBytes = 16 * 1024;
  bool whole = false;
  uint64_t wholeLimit = uint64_t(4) << 30;
};

/// Reads one entry value. `prefix` is the first bytes of the file (at least
/// min(fileSize, 64 KiB) of them); `fileSize` its length; `readAt(offset,
/// n)` returns up to n further bytes from `offset` (used to walk a zstd
/// frame's block headers to its end, or for a whole decode). Mirrors
/// compilation_cache.decompress_executable + extract_executable_and_time.
/// Never fails: what is wrong is the status.
struct ByteSource {
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  /// Up to `n` bytes at `offset` (fewer at the end; empty on an I/O error).
  virtual std::string read(uint64_t offset, size_t n) const = 0;
};
EntryFacts readEntry(const ByteSource &src, const EntryLimits &limits = {});

/// readEntry over bytes in memory (tests, the fuzz target, the page).
EntryFacts readEntryBytes(std::string_view bytes, const EntryLimits &limits = {});

/// Parses an IFRT header at the start of `executable` (after the 4 time
/// bytes). Unset when the bytes do not start with one.
std::optional<IfrtHeader> parseIfrtHeader(std::string_view executable);

/// How a file of the directory is classified by its name.
enum class FileKind : uint8_t {
  Entry,      ///< `<key>` (0.4.30) or `<key>-cache`
  Atime,      ///< `<stem>-atime`: JAX reads it as `<stem>-cache`'s access time (any stem)
  Lockfile,   ///< `.lockfile` (filelock, written when a cap is set)
  Temp,       ///< `_temp_<key>` (GFileCache's write-then-rename, jax/_src/gfile_cache.py)
  SubCache,   ///< a directory XLA keeps inside (xla_gpu_per_fusion_autotune_cache_dir, …)
  Symlink,    ///< not followed
  Foreign,    ///< none of the above
};
const char *fileKindName(FileKind k);

/// One directory entry as the scan saw it. Kept small: a directory of
/// 100,000 entries holds 200,000 of these.
struct CacheFile {
  std::string name;
  FileKind kind = FileKind::Foreign;
  uint16_t keyOffset = 0, keyLength = 0; ///< where the key is in `name`
  bool suffixed = false;  ///< Entry: named `<key>-cache`
  bool regular = false;   ///< a regular file (not a directory, link, device)
  bool atimeMalformed = false;    ///< the -atime file is not 8 bytes
  uint64_t size = 0;      ///< st_size, bytes on disk as JAX counts them
  int64_t mtimeNs = 0;
  /// Atime, or a `*-cache` record (an Entry, or a Foreign file or
  /// directory of that name) whose `<stem>-atime` the scan merged into it
  /// (the -atime file then has no record of its own): its value
  /// (AtimeValue: `atimeNs` holds its bits, `atimeSignificant` its length).
  bool hasAtime = false;
  bool directory = false;         ///< a directory (Foreign or SubCache)
  uint16_t atimeSignificant = 0;  ///< AtimeValue::significant
  int64_t atimeNs = 0;
  uint64_t atimeSize = 0;         ///< the -atime file's length
  /// The merged -atime file's own modification time (ns since the epoch):
  /// jax 0.4.30's eviction counts every file of the directory, an -atime
  /// too, and ranks each by its mtime.
  int64_t atimeMtimeNs = 0;
  std::string readError;          ///< non-empty: could not be opened or read (strerror)
  EntryFacts facts;               ///< Entry

  /// Entry/Temp: `<module>-<64 hex>`; Atime: the name before "-atime"
  /// (a key, or any other stem); empty otherwise.
  std::string_view key() const {
    return std::string_view(name).substr(keyOffset, keyLength);
  }
  /// The part of the key before its last '-' (the module name JAX logs).
  std::string_view module() const {
    return keyLength > 65 ? key().substr(0, keyLength - 65) : std::string_view();
  }
};

/// Where a symbolic link of the directory points, as JAX meets it: its
/// eviction stats through links (lru_cache.py: 0.12.0.1 `os.stat(cache_path)`
/// line 184, 0.10.2 `cache_path.stat()`, 0.4.30 `file.is_file()` then
/// `file.stat()`), so a link named `*-cache` counts its target's size, and
/// a dangling one raises FileNotFoundError. The scan stats the target
/// (metadata only: nothing outside the directory is opened or read).
struct LinkTarget {
  enum class State : uint8_t {
    Unknown,   ///< not known (the page's folder picker shows no links)
    Dangling,  ///< the target does not exist (stat fails)
    File,      ///< a regular file
    Other,     ///< a directory or a device
  };
  std::string name;      ///< the link's name in the directory
  State state = State::Unknown;
  std::string target;    ///< readlink's text
  uint64_t size = 0;     ///< the target's st_size (File, Other)
  int64_t mtimeNs = 0;   ///< the target's st_mtime_ns
  /// The target is a file of this same directory (a target without '/'):
  /// its name. Its bytes then count twice toward the cap.
  std::string inside;
};

/// Everything the scan read; no judgement yet.
struct CacheScan {
  std::string dir;
  /// Sorted by name; each `<key>-atime` beside its `<key>-cache` is merged
  /// into the entry's record, so Atime records are orphans.
  std::vector<CacheFile> files;
  /// One per Symlink record, by name.
  std::vector<LinkTarget> links;
};

/// One file of a directory someone else listed (the page's folder picker,
/// which hands over names, sizes, modification times and the bytes, but no
/// descriptors, links or -atime side effects).
struct ListedFile {
  enum class Type : uint8_t { Regular, Directory, Symlink, Other };
  std::string name;        ///< the name inside the directory (no '/')
  Type type = Type::Regular;
  uint64_t size = 0;       ///< bytes
  int64_t mtimeNs = 0;     ///< the modification time, ns since the epoch
  /// Regular files: their bytes (never null for them).
  const ByteSource *bytes = nullptr;
  /// Non-empty: the file could not be read (the reader's message).
  std::string readError;
};

/// The scan of a listed directory: the same records, classification, entry
/// reading and -atime merging as the CLI's POSIX scan (scanCacheDir,
/// engine/tools/cachekey/PosixCacheDir.h), on `files` (any order).
CacheScan scanListedFiles(const std::string &dir, const std::vector<ListedFile> &files,
                          const EntryLimits &limits = {});

// The parts every lister shares (scanListedFiles and the POSIX scan).

/// Sets `f.kind`, and where the key sits in `f.name`, from the name alone:
/// `<key>-cache` and a bare `<key>` (0.4.30) are entries, any
/// `<stem>-atime` an access time (lru_cache.py reads `<stem>-atime` for
/// every `<stem>-cache` its glob meets, whatever the stem), `_temp_<key>`
/// gfile_cache.py's leftovers, `.lockfile` the lock; anything else (or a
/// name over 60,000 bytes) is Foreign. A key is `<module>-<64 lowercase
/// hex>`.
void classifyCacheFile(CacheFile &f);

/// The kind of a directory inside the cache directory: SubCache for XLA's
/// own (`xla_…`, which the cap does not count), Foreign for any other, and
/// for one named `*-cache`, which JAX's eviction glob meets (it counts its
/// size and fails to unlink it).
FileKind subCacheOrForeign(std::string_view name);

/// The most bytes of an -atime file a lister reads (kMaxAtimeRead): a
/// longer one ranks as AtimeValue::kUnread says.
inline constexpr size_t kMaxAtimeRead = 4096;

/// int.from_bytes(b, "little"), as lru_cache.py reads a whole -atime file
/// (Python's int: unsigned, of any length), as far as ranking needs it.
struct AtimeValue {
  /// Bytes up to the last nonzero one: 0 for an empty or all-zero file, at
  /// most 8 for every value below 2^64; kUnread for a file longer than
  /// kMaxAtimeRead bytes (not read whole: ranked after every other).
  uint16_t significant = 0;
  static constexpr uint16_t kUnread = 0xffff;
  /// The number when `significant` <= 8; above, its 8 most significant
  /// bytes (so two values of more than 8 bytes compare exactly unless they
  /// have the same length and the same top 8 bytes).
  uint64_t bits = 0;
  /// The key the eviction's heap orders by: the number's order.
  std::pair<uint16_t, uint64_t> rank() const {
    return {significant > 8 ? significant : 0, bits};
  }
};
/// `b` is the file's bytes (all of them, or its first kMaxAtimeRead when
/// `fileSize` is larger).
AtimeValue atimeValue(std::string_view b, uint64_t fileSize);

/// An -atime file read by a lister, waiting to meet its `<stem>-cache`
/// (64 bytes: one per entry of a 100,000-entry directory while it is read).
struct AtimeRecord {
  AtimeRecord() = default;
  AtimeRecord(std::string name, AtimeValue v, int64_t mtimeNs, uint64_t size)
      : name(std::move(name)), bits(v.bits), mtimeNs(mtimeNs), size(size),
        significant(v.significant), malformed(size != 8) {}
  std::string name;
  uint64_t bits = 0;    ///< AtimeValue::bits of its bytes
  int64_t mtimeNs = 0;  ///< its modification time, ns since the epoch
  uint64_t size = 0;    ///< bytes
  uint16_t significant = 0; ///< AtimeValue::significant
  bool malformed = false; ///< not 8 bytes long
  AtimeValue value() const { return {significant, bits}; }
};

/// Sorts `scan.files` by name and folds each of `atimes` into the record of
/// its `<stem>-cache` (an entry, or a foreign file or directory of that name:
/// JAX's glob meets every one; hasAtime, atimeNs, atimeSignificant,
/// atimeSize, atimeMalformed, atimeMtimeNs); an -atime with no such record
/// (or whose `<stem>-cache` is a symbolic link) becomes an orphan record of
/// its own. `atimes` is emptied. Either list may come in any order; in name
/// order they are merged in one pass.
void mergeAtimeRecords(CacheScan &scan, std::vector<AtimeRecord> &atimes);

/// The kinds of problem, each about one file (or key).
enum class ProblemCode : uint8_t {
  DamagedEntry,     ///< fields: file, status, detail
  OrphanCache,      ///< -cache without -atime (file)
  OrphanAtime,      ///< -atime without -cache (file)
  BadAtime,         ///< -atime that is not 8 bytes (file, size)
  TempLeftover,     ///< _temp_ file (file)
  ForeignFile,      ///< not JAX's (file, size, directory, counted_by_cap, with_atime)
  Symlink,          ///< not followed (file, link, counted_by_cap, double_counted)
  Unreadable,       ///< could not be read (file, detail)
  MixedCompression, ///< entries written with both codecs (count_zstd, count_zlib, file: an example of the fewer)
  SubCache,         ///< XLA's sub-cache directory, not counted by the cap (file)
  /// An entry of the other layout than the one the rule's JAX reads (file,
  /// size, countedByCap): a bare `<key>` (jax 0.4.30) under a 0.4.31-or-later
  /// rule, never read, counted or evicted; or a `<key>-cache` under the
  /// 0.4.30 rule, never read but counted and evictable (every file is). A
  /// directory used by jax 0.4.30 and, after an upgrade, by a later one
  /// holds both. It is no entry of the report's programs.
  OtherLayoutEntry,
};
const char *problemCodeName(ProblemCode c);

struct CacheProblem {
  ProblemCode code;
  std::string file;
  std::string detail;          ///< DamagedEntry/Unreadable: the reader's message
  EntryStatus status = EntryStatus::Ok; ///< DamagedEntry
  uint64_t size = 0;           ///< BadAtime, OtherLayoutEntry (bytes)
  size_t countZstd = 0, countZlib = 0; ///< MixedCompression
  bool strictRule = false;     ///< OrphanCache under AtimeStrict: capped puts raise
  /// Symlink: where it points, and what JAX's capped eviction does with it
  /// under the report's rule: stats it (a `*-cache` name, or any file link
  /// in 0.4.30), so a dangling one makes every capped put raise and a live
  /// one adds its target's size (twice when the target is in the directory).
  LinkTarget link;
  /// Symlink: the eviction pass stats it; OtherLayoutEntry, ForeignFile:
  /// the eviction pass counts it toward the cap (and may delete it; a
  /// directory named `*-cache` it fails to delete).
  bool countedByCap = false;
  bool directory = false;      ///< ForeignFile: a directory
  bool withAtime = false;      ///< ForeignFile counted by the cap: ranked by its `<stem>-atime`
};

/// One entry of a program (the file is CacheReport::files[file]).
struct ProgramEntry {
  uint32_t file = 0;
  uint32_t compileSeconds = 0;
  int64_t lastAccessNs = 0;    ///< -atime when present, else mtime
  bool fromAtime = false;
  EntryStatus status = EntryStatus::Ok;
};

/// A module name and its entries (its keys): the churn is their number.
struct ProgramSummary {
  std::string module;
  std::vector<ProgramEntry> entries; ///< newest access first
  uint64_t size = 0;
  uint64_t decompressed = 0;   ///< sum of the known sizes
  bool decompressedComplete = true; ///< every entry's size is known
  uint64_t compileSeconds = 0; ///< sum: what hits on every entry save
  int64_t lastAccessNs = 0;
};

/// The hint an IFRT header gives about one program's entries.
enum class HintCode : uint8_t {
  OutputShapesDiffer, ///< the entries' output shapes differ (module, shapes per entry)
  SameOutputShapes,   ///< the headers agree: the keys differ elsewhere (module)
  NoHeader,           ///< the entries carry no IFRT header (jaxlib 0.4.x) (module)
};
const char *hintCodeName(HintCode c);
struct CacheHint {
  HintCode code;
  std::string module;
  size_t entries = 0;              ///< the program's number of entries
  /// Entries that are damaged or unreadable: their headers are not read
  /// ("?" in `shapes`), and they count for neither code.
  size_t unread = 0;
  /// The distinct output-spec lists ("f32[64], f32[8]"), newest entry's
  /// first, at most 64; SameOutputShapes: the one list; NoHeader: none.
  std::vector<std::string> shapes;
};

/// One eviction, in JAX's order.
struct PlannedEviction {
  std::string file;
  uint64_t size = 0;
  /// What it is ranked by: its mtime (0.4.30's rule); its -atime file's
  /// value; 0, having no -atime (0.11.2's rule); or a value cachekey does
  /// not hold: an -atime number of more than 64 bits (JAX ranks it after
  /// every 64-bit one, as here), or an -atime that is a symbolic link (JAX
  /// reads through it, cachekey follows no link: ranked here as 0, so JAX's
  /// order may differ; EvictionPlan::atimeLinks).
  enum class RankFrom : uint8_t { Mtime, AtimeFile, NoAtime, AtimeBeyond64, AtimeLink };
  RankFrom rankFrom = RankFrom::Mtime;
  /// Mtime: the mtime (signed ns); AtimeFile: the value's bits (an unsigned
  /// number, as Python reads it); 0 otherwise.
  int64_t rankNs = 0;
};
const char *rankFromName(PlannedEviction::RankFrom r);

/// What `--max-size` would do.
struct EvictionPlan {
  EvictionRule rule;
  uint64_t maxSize = 0;
  uint64_t countedSize = 0;   ///< the size JAX adds up under the rule
  std::vector<PlannedEviction> evicted;
  bool raises = false;        ///< the pass raises: nothing is written under a cap
  std::string raisingFile;    ///< the first file it raises at (by name)
  /// Why: the -cache has no -atime (AtimeStrict; a dangling link as its
  /// -atime is none), it is a dangling link, its -atime is a directory
  /// (read_bytes: IsADirectoryError) or cannot be read (PermissionError),
  /// all four while
  /// the pass adds up sizes, before it evicts anything; or (DirectoryEntry)
  /// the pass reached a directory named `*-cache` in its order and failed
  /// to unlink it (IsADirectoryError), having deleted `evicted` before it.
  enum class Raise : uint8_t {
    NoAtime,
    DanglingLink,
    AtimeDirectory,
    AtimeUnreadable,
    DirectoryEntry
  } raiseReason = Raise::NoAtime;
  /// The `*-cache` names whose `-atime` is a symbolic link: ranked as 0
  /// here (PlannedEviction::RankFrom::AtimeLink), so JAX's order may differ.
  std::vector<std::string> atimeLinks;
  /// JAX's max_size -1: no cap, eviction disabled (LRUCache.eviction_enabled);
  /// 0 or below, or a next entry larger than the cap: the put is larger than
  /// the cap, so it is not written and nothing is evicted (lru_cache.py put:
  /// "exceeds the maximum cache size").
  bool noCap = false, writesRefused = false;
  int64_t requested = 0;      ///< the --max-size value as given (the cap)
  uint64_t nextEntry = 0;     ///< the put's entry (bytes): maxSize is the cap less it
  /// Links the pass counts by their targets' size (bytes), and the part of
  /// it that is a file of the directory counted a second time.
  uint64_t linkedSize = 0, doubleCounted = 0;
};

/// "no_atime", "dangling_link", "atime_directory", "atime_unreadable",
/// "directory_entry".
const char *raiseReasonName(EvictionPlan::Raise r);

/// The findings about one directory.
struct CacheReport {
  std::string dir;
  std::vector<CacheFile> files; ///< the scan's files (moved in), by name
  std::vector<LinkTarget> links; ///< the scan's links (moved in)
  /// "key" (0.4.30: file named by key), "key-cache", "mixed" (both: a
  /// directory used by 0.4.30 and by a later release), or "empty".
  std::string layout;
  EvictionRule rule;
  bool ruleInferred = true;    ///< no --release: taken from the layout
  size_t entryCount = 0;
  uint64_t entrySize = 0;
  bool hasLockfile = false, hasAtimes = false;
  std::vector<ProgramSummary> programs; ///< most keys first, then size, then name
  std::vector<CacheProblem> problems;
  std::vector<CacheHint> hints;
  std::optional<EvictionPlan> eviction;
  bool wholeDecoded = false;
};

/// Judges a scan. `release` (may be empty: inferred, 0.4.30's rule for the
/// key layout, otherwise 0.11.2's) picks the eviction rule; `maxSize` (bytes,
/// jax_compilation_cache_max_size) asks for the eviction plan of a put of
/// `nextEntry` bytes (lru_cache.py put: refused when larger than the cap,
/// else `_evict_if_needed(additional_size=nextEntry)`: JAX's own loop run on
/// the directory down to `maxSize - nextEntry`). As the option, -1 is no cap
/// (nothing evicted) and 0 or below refuses every put of an entry (nothing
/// written, nothing evicted). Error (Invalid, path "--release") naming the
/// value and the known releases when `release` is not one.
Expected<CacheReport> analyseCacheDir(CacheScan scan,
                                      const std::string &release = "",
                                      std::optional<int64_t> maxSize = {},
                                      uint64_t nextEntry = 0);

/// The English of each finding (CacheDirWording.cpp).
std::string problemText(const CacheProblem &p, EvictionRule rule);
std::string hintText(const CacheHint &h);
std::string programText(const ProgramSummary &p);
/// "f32[64], f32[8]": an entry's output specs.
std::string shapesText(const std::vector<IfrtArraySpec> &specs);
std::string evictionText(const EvictionPlan &p);
/// The report's summary, the first line of `cachekey cache-dir`: "<dir>: N
/// entries, S bytes, layout L", then ", .lockfile (a cap was set)" and
/// ", -atime files" when there are some. Its fields are the report's
/// entryCount, entrySize (bytes of the entries, as st_size counts them),
/// layout, hasLockfile and hasAtimes; the JSON's `summary` finding carries
/// them as {code: "cache_summary", dir, entries, entries_size, layout,
/// lockfile, atime_files, text}.
std::string cacheSummaryText(const CacheReport &r);

/// {dir, layout, rule, …, summary{code, …fields, text}, programs[],
/// problems[{code, …fields, text}], hints[], eviction?} — every finding
/// carries its code, its fields and its text.
Json cacheReportToJson(const CacheReport &r);
/// The same JSON written as it is made, one entry at a time, so that a
/// directory of 100,000 entries never holds its whole tree (bench/run).
void writeCacheReportJson(std::ostream &out, const CacheReport &r);
/// The human-readable report.
void writeCacheReport(std::ostream &out, const CacheReport &r);

} // namespace cachekey

#endif // CACHEKEY_CACHEDIR_H
