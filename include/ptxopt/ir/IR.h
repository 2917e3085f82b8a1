// Umbrella header of the IR.
#pragma once

#include "ptxopt/ir/Function.h"
#include "ptxopt/ir/Instruction.h"
#include "ptxopt/ir/Module.h"
#include "ptxopt/ir/Opcode.h"
#include "ptxopt/ir/Operand.h"
#include "ptxopt/ir/Types.h"
#include "ptxopt/ir/Variable.h"
