import ListServer

@inline(never)
func scanOnce(_ scanner: inout RequestHeadScanner, _ bytes: [UInt8]) -> HeadScan {
    scanner.scan(bytes.span)
}
