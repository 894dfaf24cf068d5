; C++ facts (also C headers: `.h` files are parsed as C++).
; Capture conventions: see deepdiscovery-core/src/facts/code.rs.

; ---- definitions
; Methods first: a constructor declared in a class body also matches the function
; patterns below, and the first match of a node gives its kind.
(field_declaration_list
  [
    (function_definition
      declarator: [
        (function_declarator declarator: [(field_identifier) (identifier)] @name)
        (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
        (reference_declarator (function_declarator declarator: (field_identifier) @name))
      ])
    (field_declaration
      declarator: [
        (function_declarator declarator: (field_identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
        (reference_declarator (function_declarator declarator: (field_identifier) @name))
      ])
    (declaration
      declarator: (function_declarator declarator: (identifier) @name))
  ] @definition.method)

; Out-of-line member definitions (`double Shape::area() const { … }`).
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        name: [
          (identifier) @name
          (qualified_identifier name: [
            (identifier) @name
            (qualified_identifier name: (identifier) @name)])]))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          name: [
            (identifier) @name
            (qualified_identifier name: [
              (identifier) @name
              (qualified_identifier name: (identifier) @name)])])))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          name: [
            (identifier) @name
            (qualified_identifier name: [
              (identifier) @name
              (qualified_identifier name: (identifier) @name)])])))
  ]) @definition.method

; Free functions, also behind pointer and reference declarators.
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (reference_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function

; Prototypes outside function bodies (a header declares what its source file defines).
(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
    ]) @definition.function)
(declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
    ]) @definition.function)
(template_declaration
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
    ]) @definition.function)
(preproc_ifdef
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
    ]) @definition.function)
(preproc_if
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
    ]) @definition.function)
(preproc_else
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
    ]) @definition.function)
(preproc_elif
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
    ]) @definition.function)

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; Typedefs. Of `typedef struct point {…} point_t;` the struct is the definition that
; spans the body, and the typedef only names it (so it does not nest the struct).
(type_definition
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: (type_identifier) @name @definition.type)

(type_definition
  type: [
    (primitive_type) (type_identifier) (sized_type_specifier) (template_type) (qualified_identifier)
    (struct_specifier !body) (union_specifier !body) (enum_specifier !body)
    (struct_specifier !name) (union_specifier !name) (enum_specifier !name)
  ]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; ---- imports
(preproc_include path: (string_literal (string_content) @import.target)) @import
(preproc_include path: (system_lib_string) @import.system) @import

; ---- inheritance
(class_specifier
  name: (type_identifier) @supertype.child
  (base_class_clause
    [(type_identifier) (qualified_identifier) (template_type)] @supertype.extends))

(struct_specifier
  name: (type_identifier) @supertype.child
  (base_class_clause
    [(type_identifier) (qualified_identifier) (template_type)] @supertype.extends))

; ---- references
(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (template_function name: (identifier) @name)
    (qualified_identifier name: [
      (identifier) @name
      (template_function name: (identifier) @name)
      (qualified_identifier name: [
        (identifier) @name
        (template_function name: (identifier) @name)])])
  ]) @reference.call

(type_identifier) @name @reference.type

; ---- strings (file paths, placeholders) where values are written; not include paths
(argument_list (string_literal (string_content) @string))
(init_declarator value: (string_literal (string_content) @string))
(initializer_list (string_literal (string_content) @string))
(assignment_expression right: (string_literal (string_content) @string))
(return_statement (string_literal (string_content) @string))
(argument_list (raw_string_literal (raw_string_content) @string))
(init_declarator value: (raw_string_literal (raw_string_content) @string))
