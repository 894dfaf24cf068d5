/*
 * deepdiscovery from C: open a repository, run discover for a task, print the ranked
 * files, free everything.
 *
 *   example REPO "task text" [OPTIONS_JSON]
 */
#include <stdio.h>
#include <stdlib.h>

#include "deepdiscovery.h"
#include "json_min.h"

int main(int argc, char **argv) {
  dd_session *session = NULL;
  char *error = NULL;
  char *package = NULL;
  const char *file;
  char path[1024];
  char score[64];
  int rank = 0;

  if (argc < 3) {
    fprintf(stderr, "usage: %s REPO \"task text\" [OPTIONS_JSON]\n", argv[0]);
    return 2;
  }
  printf("deepdiscovery %s (package schema %u)\n", dd_version(), (unsigned)dd_schema_version());

  dd_status status = dd_session_open(argv[1], NULL, &session, &error);
  if (status != DD_STATUS_OK) {
    fprintf(stderr, "cannot open %s: %s (%s)\n", argv[1], error, dd_status_str(status));
    dd_string_free(error);
    return 1;
  }

  status = dd_discover(session, argv[2], argc > 3 ? argv[3] : NULL, &package, &error);
  if (status != DD_STATUS_OK) {
    fprintf(stderr, "discover failed: %s (%s)\n", error, dd_status_str(status));
    dd_string_free(error);
    dd_session_free(session);
    return 1;
  }

  /* files: the context package, in its order. */
  printf("context package:\n");
  rank = 0;
  for (file = jm_first(jm_get(package, "files")); file; file = jm_next(file)) {
    if (!jm_get_string(file, "path", path, sizeof path)) {
      fprintf(stderr, "unexpected package JSON\n");
      break;
    }
    printf("%3d. %s\n", ++rank, path);
  }

  /* ranked_files: every considered file; files cut as weak or over the budget keep
     their place, unselected. */
  printf("ranked files:\n");
  rank = 0;
  for (file = jm_first(jm_get(package, "ranked_files")); file; file = jm_next(file)) {
    const char *s = jm_get(file, "score");
    const char *selected = jm_get(file, "selected");
    size_t n = 0;
    if (!jm_get_string(file, "path", path, sizeof path) || !s) {
      fprintf(stderr, "unexpected package JSON\n");
      break;
    }
    while (n + 1 < sizeof score && s[n] && s[n] != ',' && s[n] != '\n' && s[n] != '}') {
      score[n] = s[n];
      n++;
    }
    score[n] = '\0';
    printf("%3d. %c %-50s %s\n", ++rank, selected && *selected == 't' ? '*' : ' ', path, score);
  }
  printf("(* = in the context package)\n");

  dd_string_free(package);
  dd_session_free(session);
  return 0;
}
