// Graph: a list of op nodes over numbered values. The executor runs one; op records that are
// compositions (LayerNormalization, LSTM, ...) return one from OpRecord::decompose, and the
// executor inlines it.
//
//   Graph g(2);                                  // two graph inputs: values 0 and 1
//   int s = g.Add("Add", {0, 1});
//   g.outputs = {g.Add("Relu", {s})};
#pragma once

#include <string>
#include <vector>

#include "alknet/compute/op.h"

namespace alknet::compute {

struct Graph {
  // A value id of -1 in Node::inputs is an absent optional input (ONNX's empty name).
  static constexpr int kAbsent = -1;

  struct Node {
    std::string op;
    std::vector<int> inputs;  // value ids
    Attributes attributes;
    int opset = 17;
    std::string name;
    int first_output = 0;  // value id of its first output (set by Add)
    int output_count = 1;
    // Known values of inputs, parallel to `inputs` (nullptr: unknown); see
    // OpNode::input_values. A host input (OpRecord::host_inputs) must have one, and its value
    // id may then be kAbsent: it never needs to live on the device.
    std::vector<ConstValue> input_values;
  };

  explicit Graph(int num_inputs = 0) : num_inputs(num_inputs), num_values(num_inputs) {}
  // Appends a node; returns the value id of its first output.
  int Add(std::string op, std::vector<int> inputs, Attributes attributes = {}, int opset = 17,
          int output_count = 1);

  int num_inputs = 0;
  int num_values = 0;
  std::vector<Node> nodes;
  std::vector<int> outputs;
  // RunPasses has already rewritten this graph (an ONNX plan does so once, when it is built):
  // the executor does not run the passes on it again.
  bool passes_applied = false;
};

}  // namespace alknet::compute
