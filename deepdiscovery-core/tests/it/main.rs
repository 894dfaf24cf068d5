//! Integration tests of deepdiscovery-core: one binary, one module per area.

mod support;

mod config_facts;
mod discover;
mod discover_implicit;
mod disk_cache;
mod freshness;
mod grammars;
mod history;
mod hostile;
mod implicit_rules;
mod lang_c_family;
mod lang_csharp;
mod lang_go;
mod lang_java;
mod lang_js;
mod lang_kotlin;
mod lang_php;
mod lang_python;
mod lang_ruby;
mod lang_rust;
mod llm;
mod locate;
mod mixed;
mod roles;
mod rules;
mod scope;
mod semantic;
mod session;
mod source;
mod static_semantics;
mod summaries;
mod watch;
mod where_to_look;
