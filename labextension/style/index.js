import './base.css';
import './files.css';
