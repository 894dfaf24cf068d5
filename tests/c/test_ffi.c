/*
 * Tests of the C ABI from C: the main flow on a fixture repository, every error
 * path, plug-in callbacks that fail, one session shared by several threads, and a
 * panic inside the core.
 * Run under AddressSanitizer + LeakSanitizer by `make test-c`.
 *
 *   test_ffi FIXTURES_DIR
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deepdiscovery.h"
#include "json_min.h"

static const char *TASK =
    "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in "
    "`convert_currency`";
static const char *EXPECTED_FIRST = "inventory/pricing/currency.py";

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    checks++;                                                              \
    if (!(cond)) {                                                         \
      failures++;                                                          \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

/* Checks a failed call: the status, a message containing `words`, no result. */
static void check_failure(const char *what, dd_status status, dd_status expected, char *out,
                          char *error, const char *words) {
  checks++;
  if (status != expected || out != NULL || error == NULL || strstr(error, words) == NULL) {
    failures++;
    fprintf(stderr, "%s: got %s (%s), expected %s with \"%s\"\n", what, dd_status_str((int)status),
            error ? error : "(no message)", dd_status_str((int)expected), words);
  } else {
    printf("  ok: %-34s -> %s: %s\n", what, dd_status_str((int)status), error);
  }
  dd_string_free(out);
  dd_string_free(error);
}

/* The string `key` of the object at `p`, into a static buffer ("" if missing). */
static const char *member(const char *p, const char *key) {
  static char buf[1024];
  if (!p || !jm_get_string(p, key, buf, sizeof buf)) {
    buf[0] = '\0';
  }
  return buf;
}

/* Whether one of the package's notes contains `words`. */
static int has_note(const char *package, const char *words) {
  char note[2048];
  const char *n;
  for (n = jm_first(jm_get(package, "notes")); n; n = jm_next(n)) {
    if (jm_string(n, note, sizeof note) && strstr(note, words)) {
      return 1;
    }
  }
  return 0;
}

static char *discover(const dd_session *session, const char *options) {
  char *package = NULL;
  char *error = NULL;
  dd_status status = dd_discover(session, TASK, options, &package, &error);
  if (status != DD_STATUS_OK) {
    fprintf(stderr, "discover failed: %s: %s\n", dd_status_str((int)status), error);
  }
  CHECK(status == DD_STATUS_OK && package != NULL && error == NULL);
  dd_string_free(error);
  return package;
}

static void test_main_flow(const char *repo) {
  dd_session *session = NULL;
  char *error = NULL;
  char *package;
  char *location = NULL;
  const char *file;
  char path[1024];
  int rank = 0;

  printf("main flow on %s\n", repo);
  CHECK(dd_session_open(repo, NULL, &session, &error) == DD_STATUS_OK);
  CHECK(session != NULL && error == NULL);

  package = discover(session, NULL);
  CHECK(jm_get(package, "schema_version") != NULL);

  /* The package drawn by the core: the same bytes every time, the best file in it. */
  char *svg = NULL, *again = NULL;
  CHECK(dd_package_svg(package, &svg, &error) == DD_STATUS_OK && error == NULL);
  CHECK(dd_package_svg(package, &again, &error) == DD_STATUS_OK);
  CHECK(svg != NULL && again != NULL && strcmp(svg, again) == 0);
  const char *svg_start = "<svg xmlns=\"http://www.w3.org/2000/svg\" ";
  CHECK(svg != NULL && strncmp(svg, svg_start, strlen(svg_start)) == 0);
  CHECK(svg != NULL && strstr(svg, EXPECTED_FIRST) != NULL && strstr(svg, "</svg>\n") != NULL);
  dd_string_free(svg);
  dd_string_free(again);
  CHECK(strtoul(jm_get(package, "schema_version"), NULL, 10) == dd_schema_version());
  printf("  ranked files:\n");
  for (file = jm_first(jm_get(package, "ranked_files")); file; file = jm_next(file)) {
    CHECK(jm_get_string(file, "path", path, sizeof path));
    printf("  %3d. %s\n", ++rank, path);
  }
  CHECK(rank > 0);
  CHECK(strcmp(member(jm_first(jm_get(package, "files")), "path"), EXPECTED_FIRST) == 0);
  CHECK(strcmp(member(jm_first(jm_get(package, "ranked_files")), "path"), EXPECTED_FIRST) == 0);
  /* Where to look: the task names `convert_currency`, defined in the best file. */
  const char *definition = jm_first(jm_get(package, "definitions"));
  CHECK(definition != NULL && strcmp(member(definition, "path"), EXPECTED_FIRST) == 0);
  CHECK(definition != NULL && strcmp(member(definition, "name"), "convert_currency") == 0);
  dd_string_free(package);

  /* Options reach the core. */
  package = discover(session, "{\"budget\": {\"max_tokens\": 3000}, \"anchors\": 4}");
  CHECK(strncmp(jm_get(jm_get(package, "budget"), "max_tokens"), "3000", 4) == 0);
  dd_string_free(package);

  CHECK(dd_locate(session, TASK, "{\"anchors\": 3}", &location, &error) == DD_STATUS_OK);
  CHECK(location != NULL && error == NULL);
  CHECK(strcmp(member(jm_first(jm_get(location, "anchors")), "path"), EXPECTED_FIRST) == 0);
  CHECK(strcmp(member(jm_first(jm_get(location, "definitions")), "name"), "convert_currency") == 0);
  dd_string_free(location);

  char *markdown = NULL;
  CHECK(dd_discover_markdown(session, TASK, NULL, &markdown, &error) == DD_STATUS_OK);
  CHECK(markdown != NULL && strncmp(markdown, "# Task context", 14) == 0);
  dd_string_free(markdown);

  dd_session_free(session);
}

static void test_errors(const char *repo, const char *a_file) {
  dd_session *session = NULL;
  char *error = NULL;
  char *out = NULL;

  printf("error paths\n");
  dd_status status = dd_session_open("/no/such/repository", NULL, &session, &error);
  CHECK(session == NULL);
  check_failure("open a missing path", status, DD_STATUS_ROOT_NOT_FOUND, NULL, error,
                "/no/such/repository");

  status = dd_session_open(a_file, NULL, &session, &error);
  check_failure("open a file", status, DD_STATUS_ROOT_NOT_DIRECTORY, NULL, error, "not a directory");

  status = dd_session_open(NULL, NULL, &session, &error);
  check_failure("open NULL", status, DD_STATUS_NULL_ARGUMENT, NULL, error, "root is NULL");

  status = dd_package_svg("{\"files\": [", &out, &error);
  check_failure("draw a package that is no JSON", status, DD_STATUS_INVALID_JSON, out, error,
                "package_json is not JSON");
  out = NULL;
  status = dd_package_svg(NULL, &out, &error);
  check_failure("draw NULL", status, DD_STATUS_NULL_ARGUMENT, out, error, "package_json");
  out = NULL;
  /* A hostile path is escaped: no markup of it reaches the SVG. */
  CHECK(dd_package_svg("{\"files\": [{\"path\": \"<script>x</script>\", \"anchor\": true}]}", &out,
                       &error) == DD_STATUS_OK);
  CHECK(out != NULL && strstr(out, "<script") == NULL && strstr(out, "&lt;script&gt;") != NULL);
  dd_string_free(out);
  out = NULL;

  status = dd_session_open(repo, NULL, NULL, &error);
  check_failure("open without out", status, DD_STATUS_NULL_ARGUMENT, NULL, error, "out is NULL");

  status = dd_session_open(repo, "{\"builtin_rules\": 1}", &session, &error);
  check_failure("open with a wrong config type", status, DD_STATUS_INVALID_CONFIG, NULL, error,
                "config.builtin_rules must be a boolean");

  status = dd_session_open(repo, "{\"watch\": \"yes\"}", &session, &error);
  check_failure("open with a watch that is no boolean", status, DD_STATUS_INVALID_CONFIG, NULL,
                error, "config.watch must be a boolean");

  /* A watched session answers as an unwatched one. */
  CHECK(dd_session_open(repo, "{\"watch\": true}", &session, &error) == DD_STATUS_OK);
  for (int round = 0; round < 2; round++) { /* the second lists by difference */
    CHECK(dd_locate(session, TASK, NULL, &out, &error) == DD_STATUS_OK);
    CHECK(out != NULL && strcmp(member(jm_first(jm_get(out, "anchors")), "path"),
                                EXPECTED_FIRST) == 0);
    dd_string_free(out);
    out = NULL;
  }
  dd_session_free(session);
  session = NULL;

  /* error_out may be NULL: only the status then. */
  CHECK(dd_session_open("/no/such/repository", NULL, &session, NULL) == DD_STATUS_ROOT_NOT_FOUND);

  CHECK(dd_session_open(repo, "{\"builtin_rules\": true}", &session, &error) == DD_STATUS_OK);

  status = dd_discover(session, NULL, NULL, &out, &error);
  check_failure("discover a NULL task", status, DD_STATUS_NULL_ARGUMENT, out, error, "task is NULL");

  status = dd_discover(session, "   \n", NULL, &out, &error);
  check_failure("discover an empty task", status, DD_STATUS_EMPTY_TASK, out, error, "empty");

  status = dd_locate(session, "", NULL, &out, &error);
  check_failure("locate an empty task", status, DD_STATUS_EMPTY_TASK, out, error, "empty");

  status = dd_discover(session, "caf\xe9 crashes", NULL, &out, &error);
  check_failure("discover a Latin-1 task", status, DD_STATUS_INVALID_UTF8, out, error, "UTF-8");

  status = dd_discover(session, TASK, "{not json", &out, &error);
  check_failure("discover with invalid JSON", status, DD_STATUS_INVALID_JSON, out, error,
                "not valid JSON");

  status = dd_discover(session, TASK, "[1, 2]", &out, &error);
  check_failure("discover with a JSON array", status, DD_STATUS_INVALID_JSON, out, error,
                "JSON object");

  status = dd_discover(session, TASK, "{\"budgte\": {}}", &out, &error);
  check_failure("discover with an unknown key", status, DD_STATUS_INVALID_CONFIG, out, error,
                "unknown key `budgte`");

  status = dd_discover(session, TASK, "{\"tau\": \"high\"}", &out, &error);
  check_failure("discover with a wrong type", status, DD_STATUS_INVALID_CONFIG, out, error,
                "options.tau must be a finite number");

  status = dd_discover(session, TASK, "{\"tau\": 2.0}", &out, &error);
  check_failure("discover with tau out of range", status, DD_STATUS_INVALID_CONFIG, out, error,
                "tau");

  status = dd_locate(session, TASK, "{\"tau\": 0.2}", &out, &error);
  check_failure("locate with a discover-only key", status, DD_STATUS_INVALID_CONFIG, out, error,
                "unknown key `tau`");

  status = dd_discover(NULL, TASK, NULL, &out, &error);
  check_failure("discover on a NULL session", status, DD_STATUS_NULL_ARGUMENT, out, error,
                "session is NULL");

  status = dd_discover(session, TASK, NULL, NULL, &error);
  check_failure("discover without out", status, DD_STATUS_NULL_ARGUMENT, NULL, error,
                "package_json_out is NULL");

  status = dd_session_set_llm(session, "m", 1000, NULL, NULL, &error);
  check_failure("set a NULL language model", status, DD_STATUS_NULL_ARGUMENT, NULL, error,
                "complete is NULL");

  /* Out-parameters are written on failure too: a stale pointer is reset to NULL. */
  out = (char *)"stale";
  CHECK(dd_discover(session, "", NULL, &out, NULL) == DD_STATUS_EMPTY_TASK && out == NULL);

  /* The session still works after all that. */
  char *package = discover(session, NULL);
  CHECK(strcmp(member(jm_first(jm_get(package, "files")), "path"), EXPECTED_FIRST) == 0);
  dd_string_free(package);

  CHECK(strcmp(dd_status_str(DD_STATUS_OK), "DD_STATUS_OK") == 0);
  CHECK(strcmp(dd_status_str(DD_STATUS_EMPTY_TASK), "DD_STATUS_EMPTY_TASK") == 0);
  CHECK(strcmp(dd_status_str(12345), "DD_STATUS_UNKNOWN") == 0);
  dd_string_free(NULL);
  dd_session_free(NULL);
  dd_session_free(session);
}

/* --- plug-ins ----------------------------------------------------------- */

typedef struct {
  pthread_mutex_t lock;
  int calls;
} counter;

static void count(void *user_data) {
  counter *c = (counter *)user_data;
  pthread_mutex_lock(&c->lock);
  c->calls++;
  pthread_mutex_unlock(&c->lock);
}

static char *llm_returns_null(void *user_data, const char *prompt) {
  (void)prompt;
  count(user_data);
  return NULL;
}

/* A model that reads the environment-analysis prompt and answers it (the library
   frees the answer with free()). */
static char *llm_answers(void *user_data, const char *prompt) {
  static const char ANSWER[] =
      "{\"task_type\": \"bug_fix\", \"modules\": [], \"constraints\": [\"keep rounding\"]}";
  const char *answer = strncmp(prompt, "You analyse", 11) == 0 ? ANSWER : "{}";
  char *out;
  count(user_data);
  out = malloc(strlen(answer) + 1);
  if (out != NULL) {
    memcpy(out, answer, strlen(answer) + 1);
  }
  return out;
}

static int embed_fails(void *user_data, const char *const *texts, size_t n, float *out,
                       size_t dimension) {
  (void)texts, (void)n, (void)out, (void)dimension;
  count(user_data);
  return -1;
}

static int embed_nan(void *user_data, const char *const *texts, size_t n, float *out,
                     size_t dimension) {
  (void)texts;
  count(user_data);
  for (size_t k = 0; k < n * dimension; k++) {
    out[k] = NAN;
  }
  return 0;
}

/* A crude embedding: letter counts, plus one so that no vector is zero. */
static int embed_letters(void *user_data, const char *const *texts, size_t n, float *out,
                         size_t dimension) {
  count(user_data);
  for (size_t i = 0; i < n; i++) {
    for (size_t d = 0; d < dimension; d++) {
      out[i * dimension + d] = 1.0f;
    }
    for (const char *c = texts[i]; *c; c++) {
      out[i * dimension + (size_t)(unsigned char)*c % dimension] += 1.0f;
    }
  }
  return 0;
}

/* The in-process embedder: a model folder opens and answers; a broken one is
 * DD_STATUS_MODEL with the file named, and no handle. */
static void test_embedder_model(const char *repo, const char *model) {
  char config[4608];
  dd_session *session = NULL;
  char *out = NULL;
  char *error = NULL;
  snprintf(config, sizeof config, "{\"embedder_model\": \"%s\"}", model);
  CHECK(dd_session_open(repo, config, &session, &error) == DD_STATUS_OK);
  CHECK(session != NULL && error == NULL);
  CHECK(dd_locate(session, TASK, NULL, &out, &error) == DD_STATUS_OK);
  CHECK(out != NULL &&
        strcmp(member(jm_first(jm_get(out, "anchors")), "path"), EXPECTED_FIRST) == 0);
  dd_string_free(out);
  out = NULL;
  dd_session_free(session);
  session = NULL;

  snprintf(config, sizeof config, "{\"embedder_model\": \"%s/no-such-folder\"}", model);
  dd_status status = dd_session_open(repo, config, &session, &error);
  check_failure("open with a missing model folder", status, DD_STATUS_MODEL, NULL, error,
                "not a directory");
  status = dd_session_open(repo, "{\"embedder_model\": 3}", &session, &error);
  check_failure("open with a model that is no string", status, DD_STATUS_INVALID_CONFIG, NULL,
                error, "config.embedder_model must be a string");
  CHECK(strcmp(dd_status_str(DD_STATUS_MODEL), "DD_STATUS_MODEL") == 0);

  /* The tuned model we ship, by name: the library finds it in the checkout it was
     built from, and its similarity is explained. */
  CHECK(dd_session_open(repo, "{\"embedder_model\": \"builtin\"}", &session, &error) ==
        DD_STATUS_OK);
  CHECK(session != NULL && error == NULL);
  CHECK(dd_locate(session, TASK, NULL, &out, &error) == DD_STATUS_OK);
  CHECK(out != NULL &&
        strcmp(member(jm_first(jm_get(out, "anchors")), "path"), EXPECTED_FIRST) == 0);
  CHECK(out != NULL && strstr(out, "semantic match: `") != NULL);
  dd_string_free(out);
  out = NULL;
  dd_session_free(session);
  session = NULL;
}

static void test_plugins(const char *repo) {
  counter calls = {PTHREAD_MUTEX_INITIALIZER, 0};
  dd_session *session = NULL;
  char *error = NULL;
  char *package;

  printf("plug-ins\n");
  dd_embed_fn embedders[] = {embed_fails, embed_nan};
  const char *names[] = {"an embedder that fails", "an embedder that answers NaN"};
  for (int k = 0; k < 2; k++) {
    calls.calls = 0;
    CHECK(dd_session_open(repo, NULL, &session, &error) == DD_STATUS_OK);
    CHECK(dd_session_set_embedder(session, 8, embedders[k], &calls, &error) == DD_STATUS_OK);
    CHECK(error == NULL);
    package = discover(session, NULL);
    CHECK(calls.calls > 0);
    CHECK(has_note(package, "embedder failed"));
    CHECK(strcmp(member(jm_first(jm_get(package, "files")), "path"), EXPECTED_FIRST) == 0);
    printf("  ok: %-34s -> fallback, %d call(s), noted\n", names[k], calls.calls);
    dd_string_free(package);
    dd_session_free(session);
  }

  /* A language model that returns NULL, next to an embedder that works. */
  calls.calls = 0;
  counter embeds = {PTHREAD_MUTEX_INITIALIZER, 0};
  CHECK(dd_session_open(repo, NULL, &session, &error) == DD_STATUS_OK);
  CHECK(dd_session_set_llm(session, "null-model", 8192, llm_returns_null, &calls, &error) ==
        DD_STATUS_OK);
  CHECK(dd_session_set_embedder(session, 16, embed_letters, &embeds, &error) == DD_STATUS_OK);
  package = discover(session, NULL);
  CHECK(embeds.calls > 0);
  CHECK(!has_note(package, "embedder failed"));
  /* The model was asked, every call failed, the package says so and is unchanged. */
  CHECK(calls.calls > 0);
  {
    const char *llm = jm_get(jm_get(package, "budget"), "llm");
    const char *failures = llm ? jm_get(llm, "failures") : NULL;
    const char *made = llm ? jm_get(llm, "calls") : NULL;
    CHECK(failures != NULL && made != NULL && atoi(failures) == calls.calls &&
          atoi(made) == calls.calls);
  }
  CHECK(strcmp(member(jm_first(jm_get(package, "files")), "path"), EXPECTED_FIRST) == 0);
  printf("  ok: %-34s -> %d call(s), package returned\n", "a language model returning NULL",
         calls.calls);
  dd_string_free(package);

  dd_status status = dd_session_set_embedder(session, 0, embed_letters, &embeds, &error);
  check_failure("an embedder of dimension 0", status, DD_STATUS_INVALID_CONFIG, NULL, error,
                "dimension");
  dd_session_free(session);

  /* A model that answers: its reading of the task reaches the package. */
  calls.calls = 0;
  CHECK(dd_session_open(repo, NULL, &session, &error) == DD_STATUS_OK);
  CHECK(dd_session_set_llm(session, "c-model", 8192, llm_answers, &calls, &error) ==
        DD_STATUS_OK);
  package = discover(session, "{\"llm\": {\"max_calls\": 2}}");
  CHECK(calls.calls == 2);
  {
    char constraint[64] = "";
    const char *llm = jm_get(jm_get(package, "budget"), "llm");
    CHECK(jm_string(jm_first(jm_get(package, "constraints")), constraint, sizeof constraint));
    CHECK(strcmp(constraint, "keep rounding") == 0);
    CHECK(llm != NULL && atoi(jm_get(llm, "calls")) == 2 && atoi(jm_get(llm, "refused")) >= 1);
  }
  printf("  ok: %-34s -> %d call(s), constraint in the package\n", "a language model answering",
         calls.calls);
  dd_string_free(package);
  dd_session_free(session);
}

/* --- threads ------------------------------------------------------------ */

typedef struct {
  const dd_session *session;
  int locate;
  char first[1024];
  dd_status status;
} job;

static void *run(void *arg) {
  job *j = (job *)arg;
  char *out = NULL;
  char *error = NULL;
  if (j->locate) {
    j->status = dd_locate(j->session, TASK, NULL, &out, &error);
    if (out) {
      jm_get_string(jm_first(jm_get(out, "anchors")), "path", j->first, sizeof j->first);
    }
  } else {
    j->status = dd_discover(j->session, TASK, NULL, &out, &error);
    if (out) {
      jm_get_string(jm_first(jm_get(out, "ranked_files")), "path", j->first, sizeof j->first);
    }
  }
  dd_string_free(out);
  dd_string_free(error);
  return NULL;
}

static void test_threads(const char *repo) {
  enum { N = 4 };
  dd_session *session = NULL;
  pthread_t threads[N];
  job jobs[N];

  printf("one session, %d threads\n", N);
  CHECK(dd_session_open(repo, NULL, &session, NULL) == DD_STATUS_OK);
  for (int i = 0; i < N; i++) {
    jobs[i] = (job){.session = session, .locate = i % 2, .first = "", .status = DD_STATUS_INTERNAL};
    CHECK(pthread_create(&threads[i], NULL, run, &jobs[i]) == 0);
  }
  for (int i = 0; i < N; i++) {
    CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK(jobs[i].status == DD_STATUS_OK);
    CHECK(strcmp(jobs[i].first, EXPECTED_FIRST) == 0);
  }
  printf("  ok: %d concurrent queries agree on %s\n", N, EXPECTED_FIRST);
  dd_session_free(session);
}

/* A panic inside the core (forced by the debug builds' DEEPDISCOVERY_FAULT switch)
 * comes back as DD_STATUS_INTERNAL with a message, and the session stays usable. */
static void test_panic(const char *repo) {
  dd_session *session = NULL;
  char *error = NULL;
  char *out = NULL;

  printf("a panic inside the core\n");
  CHECK(dd_session_open(repo, NULL, &session, NULL) == DD_STATUS_OK);
  CHECK(setenv("DEEPDISCOVERY_FAULT", "discover", 1) == 0);
  dd_status status = dd_discover(session, TASK, NULL, &out, &error);
  CHECK(unsetenv("DEEPDISCOVERY_FAULT") == 0);
#ifdef NDEBUG_RUST
  CHECK(status == DD_STATUS_OK);
#else
  CHECK(status == DD_STATUS_INTERNAL && out == NULL);
  CHECK(error != NULL && strstr(error, "internal error") != NULL);
#endif
  dd_string_free(out);
  dd_string_free(error);
  out = NULL;
  error = NULL;
  CHECK(dd_discover(session, TASK, NULL, &out, &error) == DD_STATUS_OK && out != NULL);
  printf("  ok: DD_STATUS_INTERNAL, then the same session answers\n");
  dd_string_free(out);
  dd_string_free(error);
  dd_session_free(session);
}

/* A root removed during a session: the next query gives the status opening a
 * missing path gives, and the session answers again once the root is back. */
static void test_removed_root(void) {
  char dir[] = "/tmp/dd-removed-root-XXXXXX";
  char root[64], file[96];
  dd_session *session = NULL;
  char *out = NULL, *error = NULL;
  CHECK(mkdtemp(dir) != NULL);
  snprintf(root, sizeof root, "%s/repo", dir);
  snprintf(file, sizeof file, "%s/main.py", root);
  for (int round = 0; round < 2; round++) {
    CHECK(mkdir(root, 0700) == 0);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) {
      fputs("def main():\n    return 1\n", f);
      fclose(f);
    }
    if (round == 0) {
      CHECK(dd_session_open(root, NULL, &session, &error) == DD_STATUS_OK);
    }
    CHECK(dd_discover(session, "main returns the wrong value", NULL, &out, &error) ==
          DD_STATUS_OK);
    dd_string_free(out);
    out = NULL;
    CHECK(unlink(file) == 0 && rmdir(root) == 0);
    dd_status status = dd_discover(session, "main returns the wrong value", NULL, &out, &error);
    check_failure("discover on a removed root", status, DD_STATUS_ROOT_NOT_FOUND, out, error,
                  "not found");
    error = NULL;
  }
  dd_session_free(session);
  rmdir(dir);
}

int main(int argc, char **argv) {
  char repo[4096];
  char a_file[4096];
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep the order with stderr and sanitizer reports */
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s FIXTURES_DIR [TINY_MODEL_DIR]\n", argv[0]);
    return 2;
  }
  snprintf(repo, sizeof repo, "%s/locate_app", argv[1]);
  snprintf(a_file, sizeof a_file, "%s/locate_app/pyproject.toml", argv[1]);
  printf("deepdiscovery %s, package schema %u\n", dd_version(), (unsigned)dd_schema_version());

  test_main_flow(repo);
  test_errors(repo, a_file);
  test_plugins(repo);
  if (argc == 3) {
    test_embedder_model(repo, argv[2]);
  }
  test_threads(repo);
  test_panic(repo);
  test_removed_root();

  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
