import DRMOutput
import KioskCore
import KioskRendering

/// A DRM output as the show's screen.
extension KMSOutput: ShowScreen {
    var panelSize: PixelSize { size }
    var eventDescriptor: Int32? { card.fd }

    func present(at now: Double, _ draw: (PixelSurface, inout BufferContents) -> Void) throws(DRMError) {
        try present(draw)
    }

    func handleEvents(at now: Double) -> [Double] { handleEvents() }

    var statusFields: JSONObject {
        ["driver": .string(card.driverName), "device": .string(card.path), "connector": .string(connectorName),
         "mode": .string("\(mode)")]
    }

    func release() { releaseForAnotherSession() }

    func retake() { retakeAfterAnotherSession() }

    func powerOff() throws(DRMError) { try switchOff() }

    func powerOn() { switchOn() }

    var summary: String { "\(card.path) (\(card.driverName)) \(connectorName) \(mode)" }
}
