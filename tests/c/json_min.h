/*
 * A minimal JSON reader for the C tests and the example: enough to walk the
 * context package (objects, arrays, strings, numbers, literals) without a
 * dependency. Not a general-purpose parser: it validates only what it walks, and
 * decodes \uXXXX escapes outside ASCII as '?'.
 */
#ifndef DD_JSON_MIN_H
#define DD_JSON_MIN_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *jm_ws(const char *p) {
  while (p && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
    p++;
  }
  return p;
}

/* Skips the string at p (which points at its opening quote); NULL if malformed. */
static const char *jm_skip_string(const char *p) {
  if (!p || *p != '"') {
    return NULL;
  }
  for (p++; *p; p++) {
    if (*p == '\\') {
      if (!p[1]) {
        return NULL;
      }
      p++;
    } else if (*p == '"') {
      return p + 1;
    }
  }
  return NULL;
}

/* Skips the value at p; returns what follows it, or NULL if malformed. */
static const char *jm_skip(const char *p) {
  p = jm_ws(p);
  if (!p || !*p) {
    return NULL;
  }
  if (*p == '"') {
    return jm_skip_string(p);
  }
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    p = jm_ws(p + 1);
    if (p && *p == close) {
      return p + 1;
    }
    for (;;) {
      if (close == '}') {
        p = jm_skip_string(jm_ws(p));
        p = jm_ws(p);
        if (!p || *p != ':') {
          return NULL;
        }
        p++;
      }
      p = jm_ws(jm_skip(p));
      if (!p) {
        return NULL;
      }
      if (*p == close) {
        return p + 1;
      }
      if (*p != ',') {
        return NULL;
      }
      p++;
    }
  }
  /* A number or a literal: up to the next delimiter. */
  while (*p && !strchr(",]} \n\r\t", *p)) {
    p++;
  }
  return p;
}

/* Decodes the string at p into buf (always NUL-terminated, truncated to cap).
 * Returns what follows the string, or NULL if malformed. */
static const char *jm_string(const char *p, char *buf, size_t cap) {
  size_t n = 0;
  p = jm_ws(p);
  if (!p || *p != '"' || cap == 0) {
    return NULL;
  }
  for (p++; *p && *p != '"'; p++) {
    char c = *p;
    if (c == '\\') {
      p++;
      switch (*p) {
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'u': {
          char hex[5] = {0};
          long code;
          if (strlen(p + 1) < 4) {
            return NULL;
          }
          memcpy(hex, p + 1, 4);
          code = strtol(hex, NULL, 16);
          c = code < 0x80 ? (char)code : '?';
          p += 4;
          break;
        }
        case '\0': return NULL;
        default: c = *p; break; /* \" \\ \/ */
      }
    }
    if (n + 1 < cap) {
      buf[n++] = c;
    }
  }
  buf[n] = '\0';
  return *p == '"' ? p + 1 : NULL;
}

/* The value of key in the object at p, or NULL. */
static const char *jm_get(const char *p, const char *key) {
  char name[256];
  p = jm_ws(p);
  if (!p || *p != '{') {
    return NULL;
  }
  p = jm_ws(p + 1);
  while (p && *p == '"') {
    p = jm_ws(jm_string(p, name, sizeof name));
    if (!p || *p != ':') {
      return NULL;
    }
    p = jm_ws(p + 1);
    if (strcmp(name, key) == 0) {
      return p;
    }
    p = jm_ws(jm_skip(p));
    if (!p || *p != ',') {
      return NULL;
    }
    p = jm_ws(p + 1);
  }
  return NULL;
}

/* The first element of the array at p, or NULL when empty or not an array. */
static const char *jm_first(const char *p) {
  p = jm_ws(p);
  if (!p || *p != '[') {
    return NULL;
  }
  p = jm_ws(p + 1);
  return (p && *p != ']') ? p : NULL;
}

/* The element after the one at p, or NULL at the end. */
static const char *jm_next(const char *p) {
  p = jm_ws(jm_skip(p));
  if (!p || *p != ',') {
    return NULL;
  }
  return jm_ws(p + 1);
}

/* The string member key of the object at p into buf; 1 if found, else 0. */
static int jm_get_string(const char *p, const char *key, char *buf, size_t cap) {
  const char *v = jm_get(p, key);
  return v && *v == '"' && jm_string(v, buf, cap) != NULL;
}

#endif /* DD_JSON_MIN_H */
