import CPostgres
import Glibc

/// libpq's functions, loaded with `dlopen` the first time a PostgreSQL store is opened.
///
/// libpq is not linked into the server: a server on SQLite (the default, and every test that does not name a
/// PostgreSQL URL) then never loads it nor the ~20 libraries it brings (OpenSSL, GnuTLS, Kerberos, LDAP, SASL),
/// 4.8 MB of its idle memory of 23 MB (issue 16). The pointer types come from `libpq-fe.h` (`CPostgres`'s shim), so a
/// call through them is checked as a direct call would be. Debian's `libpq5` provides `libpq.so.5`; without it,
/// ``SettingKey/dataURL`` fails at start with dlopen's reason.
struct LibPQ: @unchecked Sendable {
    let clear: listserver_PQclear
    let cmdTuples: listserver_PQcmdTuples
    let connectdbParams: listserver_PQconnectdbParams
    let consumeInput: listserver_PQconsumeInput
    let enterPipelineMode: listserver_PQenterPipelineMode
    let errorMessage: listserver_PQerrorMessage
    let exec: listserver_PQexec
    let execPrepared: listserver_PQexecPrepared
    let exitPipelineMode: listserver_PQexitPipelineMode
    let finish: listserver_PQfinish
    let freemem: listserver_PQfreemem
    let getResult: listserver_PQgetResult
    let getisnull: listserver_PQgetisnull
    let getlength: listserver_PQgetlength
    let getvalue: listserver_PQgetvalue
    let notifies: listserver_PQnotifies
    let ntuples: listserver_PQntuples
    let pipelineSync: listserver_PQpipelineSync
    let prepare: listserver_PQprepare
    let resultErrorField: listserver_PQresultErrorField
    let resultErrorMessage: listserver_PQresultErrorMessage
    let resultStatus: listserver_PQresultStatus
    let sendQueryPrepared: listserver_PQsendQueryPrepared
    let setNoticeProcessor: listserver_PQsetNoticeProcessor
    let socket: listserver_PQsocket
    let status: listserver_PQstatus
    let transactionStatus: listserver_PQtransactionStatus

    /// The functions, once ``load()`` has succeeded (a call before that is a programming error and stops).
    static var api: LibPQ {
        switch loading {
        case .success(let api): return api
        case .failure(let error): fatalError("libpq used without LibPQ.load(): \(error)")
        }
    }

    /// Loads libpq (once; later calls return at once): throws when the library or one of its functions is missing.
    static func load() throws(PostgresError) {
        _ = try loading.get()
    }

    private static let loading: Result<LibPQ, PostgresError> = Result { () throws(PostgresError) in try open() }

    /// The library's name at run time (Debian's `libpq5`).
    static let libraryName = "libpq.so.5"

    private static func open() throws(PostgresError) -> LibPQ {
        guard let handle = dlopen(libraryName, RTLD_NOW | RTLD_LOCAL) else {
            throw PostgresError("cannot load \(libraryName) (install libpq5): \(lastError())")
        }
        func symbol<Function>(_ name: String) throws(PostgresError) -> Function {
            guard let address = dlsym(handle, name) else {
                throw PostgresError("\(libraryName) has no \(name): \(lastError())")
            }
            return unsafeBitCast(address, to: Function.self)
        }
        return LibPQ(
            clear: try symbol("PQclear"),
            cmdTuples: try symbol("PQcmdTuples"),
            connectdbParams: try symbol("PQconnectdbParams"),
            consumeInput: try symbol("PQconsumeInput"),
            enterPipelineMode: try symbol("PQenterPipelineMode"),
            errorMessage: try symbol("PQerrorMessage"),
            exec: try symbol("PQexec"),
            execPrepared: try symbol("PQexecPrepared"),
            exitPipelineMode: try symbol("PQexitPipelineMode"),
            finish: try symbol("PQfinish"),
            freemem: try symbol("PQfreemem"),
            getResult: try symbol("PQgetResult"),
            getisnull: try symbol("PQgetisnull"),
            getlength: try symbol("PQgetlength"),
            getvalue: try symbol("PQgetvalue"),
            notifies: try symbol("PQnotifies"),
            ntuples: try symbol("PQntuples"),
            pipelineSync: try symbol("PQpipelineSync"),
            prepare: try symbol("PQprepare"),
            resultErrorField: try symbol("PQresultErrorField"),
            resultErrorMessage: try symbol("PQresultErrorMessage"),
            resultStatus: try symbol("PQresultStatus"),
            sendQueryPrepared: try symbol("PQsendQueryPrepared"),
            setNoticeProcessor: try symbol("PQsetNoticeProcessor"),
            socket: try symbol("PQsocket"),
            status: try symbol("PQstatus"),
            transactionStatus: try symbol("PQtransactionStatus")
        )
    }

    /// A C string libpq returned, as text; empty for none (libpq's messages are never null in practice, but the
    /// pointer types do not say so).
    static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func lastError() -> String { dlerror().map { String(cString: $0) } ?? "unknown reason" }
}
