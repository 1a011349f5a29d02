/// What the kiosk's input and sensors tell about the room it stands in,
/// apart from what the show did (``ShowEvent``): the display's power acts
/// on presence, and the MQTT state and `status` report what it concluded.
public enum SensorReading: Equatable, Sendable {
    /// Someone is at the kiosk: a touch, a key, a remote, a pinch (the
    /// display's power hears it: `idle_off`, `wake_on_presence`).
    case presence
    /// A motion sensor or a proximity switch (`presence_keys`) changed:
    /// someone is there while `held`, until they say nobody. Each change is
    /// a moment of presence too. Heard by the display's power, not the show.
    case presenceSensed(held: Bool)
    /// Whether someone is at the kiosk changed (`status`'s `presence`): a
    /// sensor holds, or a touch, key or remote came within the last minute.
    case someoneThere(Bool)
    /// The ambient light sensor's reading moved by a tenth or more
    /// (`status`'s `lux`: the MQTT state, Home Assistant's lux sensor).
    case lightMeasured(lux: Double)
}
