import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Starts `body` on a new detached thread (the decoder, the screenshot
/// encoder). The thread keeps what `body` captures alive until it returns.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { context in
        Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        throw SystemCallError("pthread_create", errno: status)
    }
    pthread_detach(thread)
}
