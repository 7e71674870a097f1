## codegen
