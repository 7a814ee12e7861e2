/**
 * What no replica finished, found in the bucket and done by one of them: chunks left underived
 * ({@code UnderivedSearch}), OTLP forms left undelivered ({@code RecoveryPass}), and the {@code replay} command's
 * re-sending; each chunk claimed first ({@code DeliveryLeases}) so that one replica does it. Uses {@code derivation},
 * {@code forward}, {@code links}, {@code schedule} and {@code telemetry}.
 */
package chunkrelay.envelope.recovery;
