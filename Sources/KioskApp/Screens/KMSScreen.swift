import DRMOutput
import KioskCore
import KioskRendering

/// A DRM output as the show's screen.
extension KMSOutput: ShowScreen {
    var panelSize: PixelSize { size }
    var eventDescriptor: Int32? { card.fd }

    func present(at now: Double, _ draw: (PixelSurface, inout BufferContents) -> Void) throws(ScreenError) {
        do { try present(draw) } catch { throw .display(error) }
    }

    var panning: ScreenPanning {
        switch panMethod {
        case .unavailable(let reason): .unavailable(reason)
        case let how: .available(largest: largestFramebuffer, how: "\(how)")
        }
    }

    func presentLong(at now: Double, size: PixelSize, window: PixelRect, _ draw: (PixelSurface) -> Void) throws(ScreenError) -> Bool {
        do { return try presentLong(size: size, window: window, draw) } catch { throw .display(error) }
    }

    func drawLongAhead(size: PixelSize, _ draw: (PixelSurface) -> Void) throws(ScreenError) -> Bool {
        do { return try drawLongAhead(of: size, draw) } catch { throw .display(error) }
    }

    func presentDrawnAhead(at now: Double, window: PixelRect) throws(ScreenError) -> Bool {
        do { return try presentDrawnAhead(window: window) } catch { throw .display(error) }
    }

    func pan(at now: Double, to window: PixelRect) throws(ScreenError) -> Bool {
        do { return try pan(to: window) } catch { throw .display(error) }
    }

    func handleEvents(at now: Double) -> [Double] { handleEvents() }

    var displayDescription: DisplayDescription {
        .drm(driver: card.driverName, device: card.path, connector: connectorName, mode: "\(mode)")
    }

    func release() { releaseForAnotherSession() }

    func retake() { retakeAfterAnotherSession() }

    func powerOff() throws(ScreenError) {
        do { try switchOff() } catch { throw .display(error) }
    }

    func powerOn() { switchOn() }

    var summary: String { "\(card.path) (\(card.driverName)) \(connectorName) \(mode)" }
}
