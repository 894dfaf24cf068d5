; PHP facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.

; ---- package
(namespace_definition name: (namespace_name) @package)

; ---- definitions
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name) @definition.constant)

; ---- imports
; `use A\B\C;`, `use A\B\C as D;`, `use function A\f;`
(namespace_use_declaration
  (namespace_use_clause . [(name) (qualified_name)] @import.target)) @import

; `use A\B\{C, D as E};`: the prefix, with each name.
(namespace_use_declaration
  (namespace_name) @import.target
  body: (namespace_use_group
    (namespace_use_clause . [(name) (qualified_name)] @import.name))) @import

; `require 'x.php'`, `require_once __DIR__ . '/x.php'`, `include("x.php")`: the literal part.
(require_expression
  [
    (string (string_content) @import.target)
    (encapsed_string (string_content) @import.target)
    (binary_expression
      right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
    (parenthesized_expression
      [
        (string (string_content) @import.target)
        (encapsed_string (string_content) @import.target)
        (binary_expression
          right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
      ])
  ]) @import

(require_once_expression
  [
    (string (string_content) @import.target)
    (encapsed_string (string_content) @import.target)
    (binary_expression
      right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
    (parenthesized_expression
      [
        (string (string_content) @import.target)
        (encapsed_string (string_content) @import.target)
        (binary_expression
          right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
      ])
  ]) @import

(include_expression
  [
    (string (string_content) @import.target)
    (encapsed_string (string_content) @import.target)
    (binary_expression
      right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
    (parenthesized_expression
      [
        (string (string_content) @import.target)
        (encapsed_string (string_content) @import.target)
        (binary_expression
          right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
      ])
  ]) @import

(include_once_expression
  [
    (string (string_content) @import.target)
    (encapsed_string (string_content) @import.target)
    (binary_expression
      right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
    (parenthesized_expression
      [
        (string (string_content) @import.target)
        (encapsed_string (string_content) @import.target)
        (binary_expression
          right: [(string (string_content) @import.target) (encapsed_string (string_content) @import.target)])
      ])
  ]) @import

; ---- inheritance and implementation
(class_declaration
  name: (name) @supertype.child
  (base_clause [(name) (qualified_name)] @supertype.extends))

(interface_declaration
  name: (name) @supertype.child
  (base_clause [(name) (qualified_name)] @supertype.extends))

(class_declaration
  name: (name) @supertype.child
  (class_interface_clause [(name) (qualified_name)] @supertype.implements))

(enum_declaration
  name: (name) @supertype.child
  (class_interface_clause [(name) (qualified_name)] @supertype.implements))

; Traits used inside a class, trait or enum body.
(class_declaration
  name: (name) @supertype.child
  body: (declaration_list (use_declaration [(name) (qualified_name)] @supertype.implements)))

(trait_declaration
  name: (name) @supertype.child
  body: (declaration_list (use_declaration [(name) (qualified_name)] @supertype.implements)))

(enum_declaration
  name: (name) @supertype.child
  body: (enum_declaration_list (use_declaration [(name) (qualified_name)] @supertype.implements)))

; ---- references
(function_call_expression
  function: [(name) @name (qualified_name (name) @name)]) @reference.call

(member_call_expression name: (name) @name) @reference.call
(nullsafe_member_call_expression name: (name) @name) @reference.call
(scoped_call_expression name: (name) @name) @reference.call

(scoped_call_expression
  scope: [(name) @name (qualified_name (name) @name)]) @reference.type
(class_constant_access_expression
  . [(name) @name (qualified_name (name) @name)]) @reference.type

(object_creation_expression
  [(name) @name (qualified_name (name) @name)]) @reference.type

(named_type [(name) @name (qualified_name (name) @name)]) @reference.type

; ---- strings (dotted paths, file paths, placeholders)
(string (string_content) @string)
(encapsed_string (string_content) @string)
