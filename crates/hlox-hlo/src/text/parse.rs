//! TODO(helper): parser
