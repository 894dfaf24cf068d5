; Ruby facts. Capture conventions: see deepdiscovery-core/src/facts/code.rs.
; `require_relative` is a local import (@import.target); `require` and `load` search
; the load path, like `#include <…>` (@import.system).

; ---- definitions
(class
  name: [(constant) @name (scope_resolution name: (constant) @name)]) @definition.class

(module
  name: [(constant) @name (scope_resolution name: (constant) @name)]) @definition.module

(method name: [(identifier) (constant)] @name) @definition.method
(singleton_method name: [(identifier) (constant)] @name) @definition.method

(assignment left: (constant) @name) @definition.constant

; ---- imports
(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string . (string_content) @import.target .))
  (#eq? @_require "require_relative")) @import

(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string . (string_content) @import.system .))
  (#any-of? @_require "require" "load")) @import

; ---- inheritance and mixins
(class
  name: [(constant) @supertype.child (scope_resolution name: (constant) @supertype.child)]
  superclass: (superclass [(constant) (scope_resolution)] @supertype.extends))

(class
  name: [(constant) @supertype.child (scope_resolution name: (constant) @supertype.child)]
  body: (body_statement
    (call
      !receiver
      method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution)] @supertype.implements)
      (#any-of? @_mixin "include" "extend" "prepend"))))

(module
  name: [(constant) @supertype.child (scope_resolution name: (constant) @supertype.child)]
  body: (body_statement
    (call
      !receiver
      method: (identifier) @_mixin
      arguments: (argument_list [(constant) (scope_resolution)] @supertype.implements)
      (#any-of? @_mixin "include" "extend" "prepend"))))

; ---- references
(call method: (identifier) @name) @reference.call

(constant) @name @reference.type

; ---- strings (dotted paths, file paths, placeholders)
(string (string_content) @string)
