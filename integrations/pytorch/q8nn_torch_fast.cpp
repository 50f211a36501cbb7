// _q8nn_fast: the q8nn_torch modules' eager-mode path into the torch.ops.q8nn operators.
//
// torch.ops.q8nn.X(...) from Python costs about 7 us per call before the operator runs (the
// overload's schema matched against the arguments and each argument converted, in Python and
// pybind11), which is most of the time of a small layer and about 0.5 ms of MobileNetV2's eager
// forward. An Op here is one operator's dispatcher handle with its argument types, looked up
// once; call() converts the arguments by those types and runs the operator boxed, through the
// same dispatcher and kernel as torch.ops (same checks, same bytes, same errors). TorchScript
// keeps calling torch.ops.q8nn (the modules choose with torch.jit.is_scripting()).
//
// A module of its own, beside libq8nn_torch_ops.so: the operator library stays loadable without
// Python (a C++ program running a TorchScript model), and this one needs the operators
// registered first (q8nn_torch.load()).
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/extension.h>

#include <string>
#include <utility>
#include <vector>

namespace {

struct Op {
  c10::OperatorHandle handle;
  std::vector<c10::TypePtr> types;  // the schema's argument types
  std::string name;
};

Op find(const std::string& name) {
  const auto handle = c10::Dispatcher::singleton().findOp(c10::OperatorName(name, ""));
  TORCH_CHECK(handle.has_value(), "_q8nn_fast: no operator ", name, " (is the q8nn_torch library loaded?)");
  Op op{*handle, {}, name};
  for (const auto& argument : handle->schema().arguments()) op.types.push_back(argument.type());
  TORCH_CHECK(handle->schema().returns().size() == 1, "_q8nn_fast: ", name, " does not return one value");
  return op;
}

py::object call(const Op& op, const py::args& args) {
  TORCH_CHECK(args.size() == op.types.size(), op.name, ": expected ", op.types.size(), " arguments, got ",
              args.size());
  torch::jit::Stack stack;
  stack.reserve(args.size());
  for (size_t i = 0; i < args.size(); i++) stack.push_back(torch::jit::toIValue(args[i], op.types[i]));
  {
    py::gil_scoped_release no_gil;  // as torch.ops: the operators run PyTorch's intra-op threads
    op.handle.callBoxed(&stack);
  }
  return torch::jit::toPyObject(std::move(stack.back()));
}

}  // namespace

PYBIND11_MODULE(_q8nn_fast, m) {
  m.doc() = "q8nn_torch's eager-mode calls of the torch.ops.q8nn operators";
  py::class_<Op>(m, "Op").def_property_readonly("name", [](const Op& op) { return op.name; });
  m.def("op", &find, "The operator torch.ops.q8nn.<name> is, for call()", py::arg("qualified_name"));
  m.def("call", &call, "Runs op on the arguments torch.ops would take");
}
