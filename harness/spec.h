/*
** Experiment specs: TOML (through toml++, harness/toml_adapter.cc) or JSON, as a cJSON tree
** with the source line of every key, validated against a table of fields per run kind.
** Canonical form: keys sorted at every level, no spaces; its SHA-256 identifies the content.
*/
#ifndef XP_SPEC_H
#define XP_SPEC_H
#include <cjson/cJSON.h>
#include <stdint.h>

typedef struct xp_spec {
  cJSON *root;   /* the document (an object) */
  cJSON *lines;  /* object: path ("a.b", "sizes[2]") -> line number; may be empty */
  char *path;    /* file it came from, or "<command line>" */
  char *dir;     /* directory relative paths in the spec resolve against */
} xp_spec;

/* Load a .toml or .json file (JSON too where a name that is neither holds a text opening with
** '{'). On error prints "xp: FILE:LINE: what" and returns NULL. */
xp_spec *xp_spec_load(const char *path);
/* Wrap a tree built in code (xp import). Takes ownership of root. dir: base for relative paths. */
xp_spec *xp_spec_from_json(cJSON *root, const char *label, const char *dir);
/* Parse a spec stored as JSON text (the database's copy, for xp rerun). */
xp_spec *xp_spec_parse_json(const char *text, const char *label, const char *dir);
void xp_spec_free(xp_spec *s);

/* Line of a key path ("sizes", "cases[1].m"), or 0 when unknown. */
int xp_spec_line(const xp_spec *s, const char *path); /* -1: the key came from --set */
/* Note that --set KEY=VALUE (as given) set the top-level KEY: errors about it then name the
** command line. */
void xp_spec_mark_cli(xp_spec *s, const char *set);
/* Note that an option (xp import's --host-skew, as typed) set the top-level key: errors about it
** then name the option. */
void xp_spec_mark_option(xp_spec *s, const char *key, const char *option);
/* Each element of the array `key` given once (by its value, or by its `member` for an array
** of tables): a value twice would plan the same cases twice. 0, or the error said. */
int xp_spec_check_distinct(const xp_spec *spec, const char *key, const char *member);
/* One shape's weights (product: how they were counted, "n x k") at most 2^log2_limit, past which
** the runner could not hold them (why says where). 0, or the error said at path. */
int xp_spec_check_weights(const xp_spec *spec, const char *path, const char *product, double weights,
                          int log2_limit, const char *why);
/* Report an error located at a key: "xp: FILE:LINE: PATH: message". Returns XP_EXIT_USAGE. */
int xp_spec_error(const xp_spec *s, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* xp_spec_error's of the environment: exit 4 (XP_EXIT_ENV), with no stored spec's advice to
** record the run anew: the spec may well run on a machine with more GPUs. */
int xp_spec_env_error(const xp_spec *s, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A device index (device, gpus[i]) past the `visible` GPUs: exit 4 (XP_EXIT_ENV), said at the
** key's line, or at the --set that gave it. 0 where device < visible. */
int xp_spec_check_device(const xp_spec *s, const char *path, int device, int visible);
/* Resolve a path written in the spec against the spec's directory (malloc'd); one that --set
** gave (the spec's own string, passed as is) stays the shell's, from the working directory. */
char *xp_spec_resolve(const xp_spec *s, const char *relpath);

/* Canonical JSON (sorted keys, compact) and its SHA-256 in hex. Caller frees the string. */
char *xp_json_canonical(const cJSON *node);
void xp_spec_hash(const xp_spec *s, char out[65]);

/* ---- validation ---- */
typedef enum xp_type {
  XP_T_STRING, XP_T_INT, XP_T_NUMBER, XP_T_BOOL,
  XP_T_STRINGS,  /* array of strings */
  XP_T_INTS,     /* array of integers */
  XP_T_NUMBERS,  /* array of numbers */
  XP_T_TABLE,    /* object, checked against .sub */
  XP_T_TABLES,   /* array of objects, each checked against .sub */
  XP_T_SIZES,    /* array of byte sizes: integers or strings like "14336", "1M", "256MiB" */
  XP_T_ANY_SCALAR_TABLE /* object of free-form scalars (notes, tags): any keys */
} xp_type;

typedef struct xp_field {
  const char *key;
  xp_type type;
  int required;
  const char *const *choices; /* NULL-terminated allowed strings (for STRING and STRINGS) */
  const struct xp_field *sub; /* for TABLE/TABLES, terminated by {NULL} */
  double min, max;            /* for INT/NUMBER(S) when min < max */
  const char *help;           /* one line, shown by xp help KIND */
} xp_field;

/* The keys every spec may declare about the system under test, kept as run metadata and
** flattened into runs columns: name, description, model, engine, tp, ep, pp, batch,
** concurrency, dtype, quantization, interconnect, gpus_declared, notes, tags. */
extern const xp_field xp_declared_fields[];

/* The key of fields (and of xp_declared_fields where declared_too) that a misspelt key most
** likely meant ("warm_up": "warmup", "modle": "model"), or NULL when none is close or two
** are equally so. For "did you mean" in errors. */
const char *xp_nearest_key(const char *key, const xp_field *fields, int declared_too);
/* The name among names (xp's dtype names where NULL) that a dtype spelt another tool's way
** means ("bfloat16", "torch.float8_e4m3fn", "BF16": bf16, fp8), for "did you mean"; NULL where
** got is one of them, or no spelling xp knows (harness/dtype_names.c). */
const char *xp_dtype_meant(const char *got, const char *const *names);
/* The label a run's declared dtype or quantization means where got spells it another tool's way
** ("BF16": bf16; "fp8_e4m3", nccl_burst's element type: fp8), else NULL (harness/dtype_names.c). */
const char *xp_dtype_label_meant(const char *got);
/* The field named key in fields (a {NULL}-terminated list, or NULL), or NULL. */
const xp_field *xp_field_find(const xp_field *fields, const char *key);

/* Where key, unknown in the table at table_path, is a top-level key of the spec's kind, to end
** the error with: in a table a TOML [header] opens (burst after [size_range]) ": a top-level
** key, read into this table as TOML reads ..."; in one written inline or in JSON (shapes =
** [{..., dtype = "fp8"}]) ": a top-level key (the whole run's), not one of this table's";
** else "". */
const char *xp_spec_top_key_note(const xp_spec *s, const char *table_path, const char *key);

/* Check obj against fields (and, at top level, the declared fields and "kind").
** Unknown keys are errors. Prints the first problem and returns XP_EXIT_USAGE, else 0. */
int xp_spec_check_fields(const xp_spec *s, const cJSON *obj, const char *path,
                         const xp_field *fields, int top_level);

/* Typed getters with defaults; the spec has been validated, so types are right. */
const char *xp_spec_str(const cJSON *obj, const char *key, const char *dflt);
int64_t xp_spec_int(const cJSON *obj, const char *key, int64_t dflt);
/* 1 with *x set if v is a JSON number or a string that is one ("1024": vLLM's --metadata
** KEY=VALUE writes every value as a string, SGLang its lengths as numbers), else 0. */
int xp_json_number(const cJSON *v, double *x);
/* Leaves, in every object within v, only the last of a key given more than once: the value
** Python's json.load keeps, which cJSON's lookups (the first) would not see. */
void xp_json_keep_last(cJSON *v);
/* The offset of a raw control character inside a string of the JSON text t[from, to) (which
** begins outside any string), else to. JSON forbids a raw newline or tab there, and cJSON takes
** one as written, so a file and the same file with CRLF line ends would record different strings. */
size_t xp_json_control_in_string(const char *t, size_t from, size_t to);
/* The line (from 1) of text[off], counting up to a NUL. */
long xp_line_of_offset(const char *text, size_t off);
double xp_spec_num(const cJSON *obj, const char *key, double dflt);
int xp_spec_bool(const cJSON *obj, const char *key, int dflt);
/* Byte sizes from an XP_T_SIZES array; returns count, *out malloc'd. -1 on a bad entry. */
int xp_spec_sizes(const xp_spec *s, const cJSON *obj, const char *key, const char *path,
                  int64_t **out);
#endif
