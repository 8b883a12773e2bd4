//! TODO(helper): builder
