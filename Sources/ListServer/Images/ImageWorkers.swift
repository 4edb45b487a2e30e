import ListDomain

/// The threads that draw, decode, scale and encode images, and check uploads, and the bounded queue in front of them.
///
/// Rendering and encoding take milliseconds to seconds of CPU (a 5000×5000 image with blur), so no event loop may
/// do them: a request's task queues a job and suspends on a continuation, which a worker resumes when the bytes are
/// ready; the task then carries on on its loop. The workers are a ``WorkerPool``. When `queueLimit` jobs already
/// wait, ``encode(_:as:from:)`` and
/// ``inspectUpload(_:as:)`` fail at once as busy (the router answers 503 with `Retry-After`) rather than letting a
/// storm of misses grow the queue, and the memory of its pixels, without bound.
///
/// Each worker owns its codecs (``ImageCodecs``: TurboJPEG handles are per thread) for its whole life, and runs at a
/// lower priority than the loops (``niceness``).
final class ImageWorkers: ImageEncoding, Sendable {
    /// What a worker keeps from one image to the next.
    private struct WorkerState {
        let codecs: ImageCodecs
        /// The pixels of the last image, drawn over by the next one of the same size (none kept above
        /// ``largestKeptFrame``, so a 4K image does not hold 25 MB per worker afterwards).
        var frame: [UInt8] = []
    }

    /// The largest frame a worker keeps between images: 8 MiB, a 1920x1440 image.
    static let largestKeptFrame = 8 << 20

    /// The threads and their bounded queue.
    private let pool: WorkerPool<WorkerState>
    /// The most jobs that may wait.
    var queueLimit: Int { pool.queueLimit }

    /// The nice value of the workers: below the loops, which must answer pages while images are encoded
    /// (Benchmarks/images, "storm").
    static let niceness: Int32 = 10

    /// Starts `count` workers (at least 1), named `image-0`, `image-1`, … in `top -H`.
    ///
    /// - Parameters:
    ///   - count: ``SettingKey/imageWorkers``.
    ///   - queueLimit: ``SettingKey/imageQueueLimit``: the most jobs waiting for a worker (at least 1).
    /// - Throws: When a codec cannot be set up (the libraries are missing or broken): the server does not start.
    init(count: Int, queueLimit: Int) throws(ImageCodecError) {
        precondition(count >= 1 && queueLimit >= 1, "ImageWorkers needs a worker and room for a job")
        var codecs: [ImageCodecs] = []
        for _ in 0..<count {
            codecs.append(try ImageCodecs())
        }
        pool = WorkerPool(
            names: (0..<count).map { "image-\($0)" }, queueLimit: queueLimit, niceness: Self.niceness,
            makeState: { [codecs] index in WorkerState(codecs: codecs[index]) })
    }

    /// Draws `spec` (or, for an upload, decodes `source` and scales it) and encodes it as `format` on a worker.
    nonisolated(nonsending) func encode(_ spec: ImageSpec, as format: ImageFormat, from source: [UInt8]?)
        async throws(ImageFailure) -> EncodedImage
    {
        typealias Outcome = CheckedContinuation<Result<EncodedImage, ImageFailure>, Never>
        let result = await withCheckedContinuation { (continuation: Outcome) in
            let queued = pool.submit { worker in
                let clock = ContinuousClock()
                let start = clock.now
                defer {
                    if worker.frame.count > Self.largestKeptFrame { worker.frame = [] }
                }
                do throws(ImageCodecError) {
                    let bytes = try Self.file(of: spec, as: format, from: source, with: &worker)
                    let encoded = EncodedImage(bytes: bytes, encodeDuration: start.duration(to: clock.now))
                    continuation.resume(returning: .success(encoded))
                } catch {
                    continuation.resume(returning: .failure(.encodingFailed(error.description)))
                }
            }
            if !queued {
                continuation.resume(returning: .failure(.busy))
            }
        }
        return try result.get()
    }

    /// `spec`'s image as a file of `format`, made on a worker: a generated JPEG without blur drawn as the
    /// encoder's planes (TurboJPEG's colour conversion skipped, the same picture), any other generated image drawn
    /// as RGB, an upload decoded from `source` and scaled; the effects applied; then encoded.
    private static func file(
        of spec: ImageSpec, as format: ImageFormat, from source: [UInt8]?, with worker: inout WorkerState
    ) throws(ImageCodecError) -> [UInt8] {
        if format == .jpeg, ImageRenderer.drawsPlanes(spec) {
            ImageRenderer.renderPlanes(spec, into: &worker.frame)
            return try worker.codecs.encodeJPEG(
                YCbCrImage(width: spec.width, height: spec.height, planes: worker.frame), progressive: spec.progressive)
        }
        let image: RGBImage
        if let upload = spec.upload, let source {
            let decoded = try worker.codecs.decode(source, as: upload.image.format)
            var scaled = try worker.codecs.scaled(decoded, toCover: spec.width, spec.height)
            ImageRenderer.applyEffects(of: spec, to: &scaled.pixels)
            image = scaled
        } else {
            ImageRenderer.render(spec, into: &worker.frame)
            image = RGBImage(width: spec.width, height: spec.height, pixels: worker.frame)
        }
        return try worker.codecs.encode(image, as: format, progressive: spec.progressive)
    }

    /// Checks an upload on a worker: the header's size first (nothing is decoded for a file that declares too
    /// many pixels), then the whole file, decoded and thrown away, then its digest.
    nonisolated(nonsending) func inspectUpload(_ bytes: [UInt8], as format: ImageFormat) async throws(UploadRejection)
        -> ImageUpload
    {
        typealias Outcome = CheckedContinuation<Result<ImageUpload, UploadRejection>, Never>
        let result = await withCheckedContinuation { (continuation: Outcome) in
            let queued = pool.submit { worker in
                continuation.resume(returning: UploadInspection.inspect(bytes, as: format, with: worker.codecs))
            }
            if !queued {
                continuation.resume(returning: .failure(.busy))
            }
        }
        return try result.get()
    }

    /// Jobs waiting for a worker now.
    var queuedJobs: Int { pool.queuedJobs }

    /// Lets the workers finish the queued jobs, then end; later jobs are refused as busy.
    func stop() {
        pool.requestStop()
    }
}
