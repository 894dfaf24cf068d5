; Rust facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.
;
; Imports (read by resolve/rust.rs):
; - `use a::b::C;` and `use a::b as c;` give the target `a::b::C` / `a::b`;
; - `use a::b::*;` gives the target `a::b`;
; - `use a::{b, c::D, e as f, g::{h, i}};` gives ONE import: target `a`, and each list
;   item as written as a name (`b`, `c::D`, `e as f`, `g::{h, i}`);
; - `mod x;` (no body) gives the target `x`: a single segment without `::`.

; ---- definitions
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
; Inline modules only: `mod x;` is an import of the file that is the module.
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.macro

; Free functions: at the top level and in inline modules (not local helpers).
(source_file (function_item name: (identifier) @name) @definition.function)
(mod_item body: (declaration_list (function_item name: (identifier) @name) @definition.function))

; Methods: in `impl` blocks and trait bodies.
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item
  body: (declaration_list
    [
      (function_item name: (identifier) @name)
      (function_signature_item name: (identifier) @name)
    ] @definition.method))

[
  (const_item name: (identifier) @name)
  (static_item name: (identifier) @name)
] @definition.constant

; ---- imports
(use_declaration
  argument: [(identifier) (scoped_identifier) (crate) (self) (super)] @import.target) @import

(use_declaration
  argument: (use_as_clause path: (_) @import.target)) @import

(use_declaration
  argument: (use_wildcard (_) @import.target)) @import

; The `","`-separated sequence keeps every list item in one match.
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.target
    list: (use_list
      (_) @import.name
      ("," (_) @import.name)*))) @import

(mod_item
  name: (identifier) @import.target
  !body) @import

; ---- implementations and supertraits
(impl_item
  trait: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
  ] @supertype.implements
  type: [
    (type_identifier) @supertype.child
    (scoped_type_identifier name: (type_identifier) @supertype.child)
    (generic_type type: [
      (type_identifier) @supertype.child
      (scoped_type_identifier name: (type_identifier) @supertype.child)
    ])
  ])

(trait_item
  name: (type_identifier) @supertype.child
  bounds: (trait_bounds
    [(type_identifier) (scoped_type_identifier) (generic_type)] @supertype.extends))

; ---- references
(call_expression
  function: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
    (field_expression field: (field_identifier) @name)
    (generic_function function: [
      (identifier) @name
      (scoped_identifier name: (identifier) @name)
      (field_expression field: (field_identifier) @name)
    ])
  ]) @reference.call

(macro_invocation
  macro: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ]) @reference.call

(type_identifier) @name @reference.type

; `Circle::new()`: the type or module before `::` (not in `use` paths).
(call_expression
  function: (scoped_identifier
    path: (identifier) @name)) @reference.other

; ---- strings (dotted paths, file paths, placeholders)
(string_literal (string_content) @string)
(raw_string_literal (string_content) @string)
