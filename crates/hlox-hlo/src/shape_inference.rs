//! TODO(helper): shape_inference
