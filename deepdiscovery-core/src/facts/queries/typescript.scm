; TypeScript facts, for both the TypeScript and the TSX grammar (so no JSX node
; names here: the TypeScript grammar has none). Capture conventions: see
; deepdiscovery-core/src/facts/code.rs.

; ---- definitions
[
  (class_declaration name: (type_identifier) @name)
  (abstract_class_declaration name: (type_identifier) @name)
] @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module

[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
  (function_signature name: (identifier) @name)
] @definition.function

[
  (method_definition name: (property_identifier) @name)
  (method_signature name: (property_identifier) @name)
  (abstract_method_signature name: (property_identifier) @name)
] @definition.method

(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; Top-level `const f = () => …` / `var f = function () {…}`, exported or not.
(program
  [(lexical_declaration
     (variable_declarator
       name: (identifier) @name
       value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
   (variable_declaration
     (variable_declarator
       name: (identifier) @name
       value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)])

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))

; Exported constants (`export const LIMIT = 5`); exported functions are matched above.
(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (number) (string) (template_string) (object) (array) (identifier)
        (member_expression) (call_expression) (new_expression) (binary_expression)
        (true) (false) (null) (regex) (class) (await_expression)
        (as_expression) (satisfies_expression)
      ]) @definition.constant))

; ---- imports
; Named imports go into one match: the `","`-separated sequence keeps them together.
(import_statement
  (import_clause
    (named_imports
      (import_specifier name: (_) @import.name)
      ("," (import_specifier name: (_) @import.name))*)?)?
  source: (string (string_fragment) @import.target)) @import

(export_statement
  (export_clause
    (export_specifier name: (_) @import.name)
    ("," (export_specifier name: (_) @import.name))*)?
  source: (string (string_fragment) @import.target)) @import

; `require("./x")` and dynamic `import("./x")`.
(call_expression
  function: [(identifier) (import)] @_fn
  arguments: (arguments . (string (string_fragment) @import.target))
  (#any-of? @_fn "require" "import")) @import

; `import fs = require("fs")`.
(import_require_clause
  source: (string (string_fragment) @import.target)) @import

; ---- inheritance
(class_declaration
  name: (type_identifier) @supertype.child
  (class_heritage (extends_clause value: (_) @supertype.extends)))

(abstract_class_declaration
  name: (type_identifier) @supertype.child
  (class_heritage (extends_clause value: (_) @supertype.extends)))

(class_declaration
  name: (type_identifier) @supertype.child
  (class_heritage
    (implements_clause [(type_identifier) (generic_type) (nested_type_identifier)] @supertype.implements)))

(abstract_class_declaration
  name: (type_identifier) @supertype.child
  (class_heritage
    (implements_clause [(type_identifier) (generic_type) (nested_type_identifier)] @supertype.implements)))

(interface_declaration
  name: (type_identifier) @supertype.child
  (extends_type_clause type: (_) @supertype.extends))

; ---- references
(call_expression
  function: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.call

(new_expression
  constructor: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.type

(type_identifier) @name @reference.type

(member_expression
  object: (identifier) @name) @reference.other

; ---- strings (dotted paths, file paths, placeholders); import specifiers excluded
(pair value: (string (string_fragment) @string))
(variable_declarator value: (string (string_fragment) @string))
(assignment_expression right: (string (string_fragment) @string))
(array (string (string_fragment) @string))
(return_statement (string (string_fragment) @string))
(public_field_definition value: (string (string_fragment) @string))
(call_expression
  function: (_) @_callee
  arguments: (arguments (string (string_fragment) @string))
  (#not-any-of? @_callee "require" "import"))

; ---- call sites: calls with string or name arguments (`router.get("/orders", list)`,
; `bus.emit("order:placed", order)`)
(call_expression
  function: (_) @call.function
  arguments: (arguments) @call.args) @call

; ---- decorations (NestJS, Angular, TypeORM…): the name and arguments, then what is
; decorated — a class (with its constructor's parameters), a method (with its
; parameters), a property or a constructor parameter (its declared type)
(decorator [(identifier) (member_expression)] @decoration.function) @decoration
(decorator
  (call_expression
    function: (_) @decoration.function
    arguments: (arguments) @decoration.args)) @decoration

(class_declaration
  decorator: (decorator) @decoration
  name: (type_identifier) @decoration.target)
(abstract_class_declaration
  decorator: (decorator) @decoration
  name: (type_identifier) @decoration.target)
(class_declaration
  decorator: (decorator) @decoration
  body: (class_body
    (method_definition
      name: (property_identifier) @_constructor
      parameters: (formal_parameters) @decoration.params)
    (#eq? @_constructor "constructor")))
(abstract_class_declaration
  decorator: (decorator) @decoration
  body: (class_body
    (method_definition
      name: (property_identifier) @_constructor
      parameters: (formal_parameters) @decoration.params)
    (#eq? @_constructor "constructor")))
(export_statement
  decorator: (decorator) @decoration
  declaration: [
    (class_declaration name: (type_identifier) @decoration.target)
    (abstract_class_declaration name: (type_identifier) @decoration.target)
  ])
(export_statement
  decorator: (decorator) @decoration
  declaration: [
    (class_declaration
      body: (class_body
        (method_definition
          name: (property_identifier) @_constructor
          parameters: (formal_parameters) @decoration.params)))
    (abstract_class_declaration
      body: (class_body
        (method_definition
          name: (property_identifier) @_constructor
          parameters: (formal_parameters) @decoration.params)))
  ]
  (#eq? @_constructor "constructor"))
(class_body
  (decorator) @decoration
  .
  (method_definition
    name: (property_identifier) @decoration.target
    parameters: (formal_parameters) @decoration.params))
(public_field_definition
  decorator: (decorator) @decoration
  type: (type_annotation) @decoration.target)
(required_parameter
  decorator: (decorator) @decoration
  type: (type_annotation) @decoration.target)
(optional_parameter
  decorator: (decorator) @decoration
  type: (type_annotation) @decoration.target)
