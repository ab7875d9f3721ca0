; Symbols and references for python (see the capture roles in ../languages.go).
(function_definition name: (identifier) @name body: (block) @body) @def.function
(class_definition name: (identifier) @name body: (block) @body) @def.class
(decorated_definition definition: (_) @wrapped) @wrap
(block . (expression_statement (string)) @doc)
(module (expression_statement (assignment left: (identifier) @name)) @def.upperconst)

; References: identifiers in call, type, selector and constructor positions.
(call function: (identifier) @ref)
(attribute attribute: (identifier) @ref)
(type (identifier) @ref)
(class_definition superclasses: (argument_list (identifier) @ref))
(decorator (identifier) @ref)
(import_from_statement name: (dotted_name (identifier) @ref))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @ref)))
