// regdesc built-in prelude: the classes of LLVM 14's
// `llvm/TableGen/SearchableTable.td`, written for regdesc. Register files
// such as ARM's system-register lists declare tables with them; regdesc only
// needs the declarations.

// An enum generated from the records of a class.
class GenericEnum {
  string FilterClass;
  string NameField;
  string ValueField;
}

// A table of the records of a class, with a primary key.
class GenericTable {
  string FilterClass;
  string CppTypeName = FilterClass;
  list<string> Fields;
  list<string> PrimaryKey;
  string PrimaryKeyName;
  bit PrimaryKeyEarlyOut = false;
}

// A secondary lookup index into a GenericTable.
class SearchIndex {
  GenericTable Table;
  list<string> Key;
  bit EarlyOut = false;
}

// The older single-class form.
class SearchableTable {
  list<string> SearchableFields;
  string EnumNameField = "Name";
  string EnumValueField;
}
