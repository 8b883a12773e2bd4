//! TODO(helper): prost-generated XLA protos
