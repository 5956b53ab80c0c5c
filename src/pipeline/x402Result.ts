/**
 * The result of a paid x402_pay: the resource's answer as recorded (status, digest, excerpt, settlement)
 * and the payment made. When the answer was lost after the payment landed (settled against the chain),
 * the result says so instead of an answer the service never received.
 */
import type { X402PaymentRow } from "../protocols/x402/paymentRepo.js"

export const x402PaidResult = (payment: X402PaymentRow, settlementSignature: string) => {
  const requirement = payment.requirement
  return {
    paid: true,
    ...(payment.response ?? { answerLost: true, settlement: { signature: settlementSignature } }),
    payment: {
      x402Version: payment.x402_version,
      scheme: requirement.scheme, network: requirement.network, payTo: requirement.payTo, asset: requirement.asset,
      amount: String(requirement.amount ?? requirement.maxAmountRequired)
    }
  }
}
