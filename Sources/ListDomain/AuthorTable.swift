/// The fixed table of author names items draw from.
///
/// 64 entries (a power of two, so the top six bits of a hash pick one without bias), of mixed origins; a few
/// have non-ASCII letters so clients and tests exercise UTF-8 end to end. The order is part of the data format:
/// reordering or editing a name changes the generated items (the golden tests will say so). All names are in
/// Unicode normalization form C.
package enum AuthorTable {
    /// The names, as `Item.author` reports them.
    package static let names: [String] = [
        "Amara Okafor", "Liam O'Connor", "Sofia Rossi", "Hiroshi Tanaka",
        "Priya Natarajan", "Mateo García", "Ingrid Johansson", "Chen Wei",
        "Fatima Al-Sayed", "Lukas Müller", "Aisha Bello", "Noah Williams",
        "Yuki Sato", "Olga Petrova", "Kwame Mensah", "Elena Popescu",
        "Rafael Souza", "Zoë Dubois", "Arjun Mehta", "Hannah Schmidt",
        "Diego Hernández", "Mei Lin", "Tomasz Kowalski", "Chloé Martin",
        "Oluwaseun Adeyemi", "Emma Johnson", "Santiago López", "Ji-woo Park",
        "Nikolai Ivanov", "Leila Haddad", "Björn Lindqvist", "Grace Kim",
        "Mohammed Rahman", "Isabella Costa", "Kenji Nakamura", "Ananya Iyer",
        "Lucas Bernard", "Nadia Benali", "Samuel Cohen", "Camila Torres",
        "Dmitri Volkov", "Aoife Byrne", "Thabo Nkosi", "Julia Nowak",
        "Ahmed Hassan", "Maya Patel", "Oliver Smith", "Søren Nielsen",
        "Linh Nguyễn", "Gabriel Silva", "Fernanda Oliveira", "Ethan Brown",
        "Zeynep Yılmaz", "Marco Bianchi", "Ewa Zielińska", "Kofi Boateng",
        "Sara Lindgren", "Andrés Ramírez", "Hana Nováková", "Ravi Shankar",
        "Alejandra Castillo", "Tariq Aziz", "Anna Kowalczyk", "François Lefèvre",
    ]

    /// The index of the name a 64-bit hash selects: its top six bits.
    @inline(__always)
    static func index(for hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> 58)
    }
}
