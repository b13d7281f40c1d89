/**
 * Numbers of the MQTT nodes that take one of a few values: the form shows them as a choice (a
 * select with words, as Node-RED's dialogs do) instead of a number field. Validation stays the
 * schema's own (an integer in range).
 */
export const QOS_CHOICES = { enum: [0, 1, 2], enumLabels: { 0: "0: at most once", 1: "1: at least once", 2: "2: exactly once" } };

export const RETAIN_HANDLING_CHOICES = { enum: [0, 1, 2], enumLabels: { 0: "Send retained messages", 1: "Only for a new subscription", 2: "Do not send" } };

export const PROTOCOL_CHOICES = { enum: [3, 4, 5], enumLabels: { 3: "MQTT 3.1", 4: "MQTT 3.1.1", 5: "MQTT 5" } };
