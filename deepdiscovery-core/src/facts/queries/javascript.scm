; JavaScript (and JSX) facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.

; ---- definitions
(class_declaration
  name: (identifier) @name) @definition.class

[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
] @definition.function

(method_definition
  name: (property_identifier) @name) @definition.method

(field_definition
  property: (property_identifier) @name
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
      ]) @definition.constant))

; CommonJS: `exports.f = function…`, `module.exports.f = () => …`.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        property: (property_identifier) @name)
      right: [(arrow_function) (function_expression)]) @definition.function))

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

; ---- inheritance
(class_declaration
  name: (identifier) @supertype.child
  (class_heritage (_) @supertype.extends))

(variable_declarator
  name: (identifier) @supertype.child
  value: (class (class_heritage (_) @supertype.extends)))

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

; JSX: `<Button …>` renders (calls) the component `Button`.
[
  (jsx_opening_element
    name: [(identifier) @name (member_expression property: (property_identifier) @name)])
  (jsx_self_closing_element
    name: [(identifier) @name (member_expression property: (property_identifier) @name)])
] @reference.call

(member_expression
  object: (identifier) @name) @reference.other

; ---- strings (dotted paths, file paths, placeholders); import specifiers excluded
(pair value: (string (string_fragment) @string))
(variable_declarator value: (string (string_fragment) @string))
(assignment_expression right: (string (string_fragment) @string))
(array (string (string_fragment) @string))
(return_statement (string (string_fragment) @string))
(field_definition value: (string (string_fragment) @string))
(call_expression
  function: (_) @_callee
  arguments: (arguments (string (string_fragment) @string))
  (#not-any-of? @_callee "require" "import"))

; ---- call sites: calls with string or name arguments (`router.get("/orders", list)`,
; `bus.emit("order:placed", order)`)
(call_expression
  function: (_) @call.function
  arguments: (arguments) @call.args) @call

; ---- decorations: the name and arguments, then what is decorated
(decorator [(identifier) (member_expression)] @decoration.function) @decoration
(decorator
  (call_expression
    function: (_) @decoration.function
    arguments: (arguments) @decoration.args)) @decoration

(class_declaration
  decorator: (decorator) @decoration
  name: (identifier) @decoration.target)
(export_statement
  decorator: (decorator) @decoration
  declaration: (class_declaration name: (identifier) @decoration.target))
(method_definition
  decorator: (decorator) @decoration
  name: (property_identifier) @decoration.target)
(field_definition
  decorator: (decorator) @decoration
  property: (property_identifier) @decoration.target)
