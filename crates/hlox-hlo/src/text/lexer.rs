//! TODO(helper): lexer
