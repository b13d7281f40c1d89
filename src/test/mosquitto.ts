/** The Mosquitto the MQTT tests use: the machine's shared one (topics under wt_mqtt/), or MQTT_TEST_URL. */
export const MOSQUITTO_URL = process.env.MQTT_TEST_URL ?? "mqtt://127.0.0.1:1883";
