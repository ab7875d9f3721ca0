; Symbols and references for typescript (see the capture roles in ../languages.go).
(function_declaration name: (identifier) @name body: (_) @body) @def.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @def.function
(function_signature name: (identifier) @name) @def.function
(class_declaration name: (_) @name body: (class_body) @body) @def.class
(abstract_class_declaration name: (_) @name body: (class_body) @body) @def.class
(class_body (method_definition name: (_) @name body: (_) @body) @def.method)
(class_body (abstract_method_signature name: (_) @name) @def.method)
(class_body (public_field_definition name: (_) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @def.method)
(interface_declaration name: (_) @name body: (_) @body) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name body: (_) @body) @def.enum
(export_statement value: (function_expression body: (_) @body)) @def.function
(export_statement value: (class body: (class_body) @body)) @def.class
(program [(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)]))] @def.jsfunc)
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) @def.jsfunc)
(program [(lexical_declaration (variable_declarator name: (identifier) @name)) (variable_declaration (variable_declarator name: (identifier) @name))] @def.jsvar)
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name)) @def.jsvar)
(export_statement declaration: (_) @wrapped) @wrap


; CommonJS and prototypes: Foo.prototype.bar = function () {} is the method
; Foo.bar; exports.baz = () => {} and module.exports.baz = function () {}
; are functions, and so are the functions of module.exports = { qux () {} }.
; At the top level, res.send = function send () {} (a module object's
; methods, as in express) is the method res.send.
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @name) right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)]) (#not-eq? @receiver "exports") (#not-eq? @receiver "module")) @def.function)
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @receiver property: (property_identifier) @_proto) property: (property_identifier) @name) right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)]) (#eq? @_proto "prototype")) @def.function
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name) right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)]) (#eq? @_exports "exports")) @def.function
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name) right: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)]) (#eq? @_module "module") (#eq? @_exports "exports")) @def.function
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object [(method_definition name: (property_identifier) @name body: (_) @body) (pair key: (property_identifier) @name value: [(function_expression body: (_) @body) (arrow_function body: (_) @body) (generator_function body: (_) @body)])] @def.function)) (#eq? @_module "module") (#eq? @_exports "exports"))


; References: identifiers in call, type, selector and constructor positions.
(type_identifier) @ref
(call_expression function: (identifier) @ref)
(member_expression property: (property_identifier) @ref)
(new_expression constructor: (identifier) @ref)
(extends_clause value: (identifier) @ref)
(import_specifier name: (identifier) @ref)
