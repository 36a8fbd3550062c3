# thin start -R config.ru
require_relative 'app'
use DateHeader
run App
