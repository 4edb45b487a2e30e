import FoundationEssentials

/// A short reason why a file or folder could not be read or made, for start-up errors: `no such file`,
/// `permission denied`, `is a directory`, else the error as Foundation describes it.
enum FileErrorReason {
    static func of(_ error: any Error) -> String {
        switch ((error as? CocoaError)?.underlying as? POSIXError)?.code {
        case .ENOENT?: "no such file"
        case .EACCES?: "permission denied"
        case .EISDIR?: "is a directory"
        case .EROFS?: "read-only file system"
        default: "\(error)"
        }
    }
}
