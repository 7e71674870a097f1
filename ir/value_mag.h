/* value_mag.h -- internal to the value analysis: the magnitude classes'
 * transfer functions (value_mag.c), which value.c's public transfer
 * functions apply to the interval result r of operands a (and b). */
#ifndef LEIR_IR_VALUE_MAG_H
#define LEIR_IR_VALUE_MAG_H

#include "ir/value.h"

IrValue vm_neg(IrValue r, IrValue a);
IrValue vm_add(IrValue r, IrValue a, IrValue b, bool sub);
IrValue vm_mul(IrValue r, IrValue a, IrValue b);
IrValue vm_div(IrValue r, IrValue a, IrValue b); /* / // % */
IrValue vm_pow(IrValue r, IrValue a, IrValue b);
IrValue vm_call(IrValue r, IrFunc f, IrValue a); /* exp log sqrt abs erf */
IrValue vm_minmax(IrValue r, IrValue a, IrValue b, bool max);
IrValue vm_convert(IrValue r, IrValue a, IrDType to);

#endif
