; Symbols and references for php (see the capture roles in ../languages.go).
(class_declaration name: (name) @name body: (declaration_list) @body) @def.class
(interface_declaration name: (name) @name body: (declaration_list) @body) @def.interface
(trait_declaration name: (name) @name body: (declaration_list) @body) @def.class
(enum_declaration name: (name) @name body: (enum_declaration_list) @body) @def.enum
(function_definition name: (name) @name body: (compound_statement) @body) @def.function
(method_declaration name: (name) @name body: (compound_statement)? @body) @def.method

; References: identifiers in call, type, selector and constructor positions.
(function_call_expression function: (name) @ref)
(member_call_expression name: (name) @ref)
(scoped_call_expression scope: (name) @ref)
(scoped_call_expression name: (name) @ref)
(object_creation_expression (name) @ref)
(named_type (name) @ref)
(base_clause (name) @ref)
(class_interface_clause (name) @ref)
(member_access_expression name: (name) @ref)
