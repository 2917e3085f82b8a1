#include "ptxopt/ir/Module.h"

namespace ptxopt {

Function* Module::addFunction(uint32_t name) {
  functions_.push_back(std::make_unique<Function>(this, name));
  items_.push_back({TopItem::Kind::Function, static_cast<uint32_t>(functions_.size() - 1)});
  return functions_.back().get();
}

Function* Module::findFunction(std::string_view name) const {
  Function* decl = nullptr;
  for (const auto& f : functions_)
    if (f->name() == name) {
      if (f->hasBody) return f.get();
      if (!decl) decl = f.get();
    }
  return decl;
}

}  // namespace ptxopt
