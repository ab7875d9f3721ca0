; Symbols and references for csharp (see the capture roles in ../languages.go).
(class_declaration name: (identifier) @name body: (declaration_list) @body) @def.class
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @def.struct
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @def.interface
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @def.enum
(record_declaration name: (identifier) @name body: (declaration_list)? @body) @def.class
(method_declaration name: (identifier) @name body: (_)? @body) @def.method
(constructor_declaration name: (identifier) @name body: (_)? @body) @def.method

; References: identifiers in call, type, selector and constructor positions.
(invocation_expression function: (identifier) @ref)
(member_access_expression name: (identifier) @ref)
(object_creation_expression type: (identifier) @ref)
(base_list (identifier) @ref)
(variable_declaration type: (identifier) @ref)
(parameter type: (identifier) @ref)
(generic_name (identifier) @ref)
(method_declaration returns: (identifier) @ref)
(property_declaration type: (identifier) @ref)
(attribute name: (identifier) @ref)
(type_argument_list (identifier) @ref)
