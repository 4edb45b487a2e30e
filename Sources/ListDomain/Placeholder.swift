public enum ListDomainPlaceholder {}
